// Durations written in configuration files: "500ms", "90s", "15m", "24h", "7d".
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost {

// A positive whole number followed by ms, s, m, h or d. nullopt for anything else.
std::optional<std::chrono::milliseconds> parse_duration_text(std::string_view text);

// The shortest exact form, e.g. 86400000 ms -> "24h".
std::string format_duration_text(std::chrono::milliseconds duration);

}  // namespace skillhost
