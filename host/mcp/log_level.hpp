// MCP logging levels (RFC 5424 severities) for logging/setLevel and notifications/message.
#pragma once

#include <optional>
#include <string_view>

namespace skillhost::mcp {

enum class LogLevel { debug, info, notice, warning, error, critical, alert, emergency };

std::optional<LogLevel> parse_log_level(std::string_view text);
std::string_view to_string(LogLevel level);

}  // namespace skillhost::mcp
