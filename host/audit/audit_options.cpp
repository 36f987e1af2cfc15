#include "audit/audit_options.hpp"

namespace skillhost::audit {

const char* to_string(FsyncPolicy policy) {
    switch (policy) {
        case FsyncPolicy::never: return "never";
        case FsyncPolicy::always: return "always";
        case FsyncPolicy::interval: return "interval";
    }
    return "interval";
}

std::optional<FsyncPolicy> parse_fsync_policy(std::string_view text) {
    if (text == "never") return FsyncPolicy::never;
    if (text == "always") return FsyncPolicy::always;
    if (text == "interval") return FsyncPolicy::interval;
    return std::nullopt;
}

}  // namespace skillhost::audit
