// MCP protocol versions this server speaks and how the version of a session is chosen.
#pragma once

#include <array>
#include <string_view>

namespace skillhost::mcp {

// Newest first.
inline constexpr std::array<std::string_view, 3> kSupportedProtocolVersions{"2025-11-25", "2025-06-18", "2025-03-26"};

// The client's version when this server supports it, else the latest one (the client then decides
// whether it can continue, as the MCP lifecycle prescribes).
std::string_view negotiate_protocol_version(std::string_view requested);

}  // namespace skillhost::mcp

namespace skillhost::mcp {
// skillhost's own version, reported as serverInfo.version.
std::string_view skillhost_version();
}  // namespace skillhost::mcp
