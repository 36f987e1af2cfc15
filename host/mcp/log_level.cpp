#include "mcp/log_level.hpp"

#include <array>
#include <utility>

namespace skillhost::mcp {

namespace {
constexpr std::array<std::pair<LogLevel, std::string_view>, 8> kNames{{{LogLevel::debug, "debug"},
                                                                       {LogLevel::info, "info"},
                                                                       {LogLevel::notice, "notice"},
                                                                       {LogLevel::warning, "warning"},
                                                                       {LogLevel::error, "error"},
                                                                       {LogLevel::critical, "critical"},
                                                                       {LogLevel::alert, "alert"},
                                                                       {LogLevel::emergency, "emergency"}}};
}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view text) {
    for (const auto& [level, name] : kNames)
        if (name == text) return level;
    return std::nullopt;
}

std::string_view to_string(LogLevel level) {
    for (const auto& [l, name] : kNames)
        if (l == level) return name;
    return "info";
}

}  // namespace skillhost::mcp
