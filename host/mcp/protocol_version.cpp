#include "mcp/protocol_version.hpp"

namespace skillhost::mcp {

std::string_view negotiate_protocol_version(std::string_view requested) {
    for (std::string_view v : kSupportedProtocolVersions)
        if (v == requested) return v;
    return kSupportedProtocolVersions.front();
}

}  // namespace skillhost::mcp

namespace skillhost::mcp {
std::string_view skillhost_version() {
    return SKILLHOST_VERSION;
}
}  // namespace skillhost::mcp
