#include "base/duration_text.hpp"

#include <charconv>

namespace skillhost {

std::optional<std::chrono::milliseconds> parse_duration_text(std::string_view text) {
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits > 12) return std::nullopt;
    long long number = 0;
    std::from_chars(text.data(), text.data() + digits, number);
    const std::string_view unit = text.substr(digits);
    long long factor = 0;
    if (unit == "ms")
        factor = 1;
    else if (unit == "s")
        factor = 1000;
    else if (unit == "m")
        factor = 60'000;
    else if (unit == "h")
        factor = 3'600'000;
    else if (unit == "d")
        factor = 86'400'000;
    else
        return std::nullopt;
    if (number <= 0) return std::nullopt;
    return std::chrono::milliseconds(number * factor);
}

std::string format_duration_text(std::chrono::milliseconds duration) {
    const long long ms = duration.count();
    struct Unit {
        long long factor;
        const char* suffix;
    };
    static constexpr Unit units[] = {{86'400'000, "d"}, {3'600'000, "h"}, {60'000, "m"}, {1000, "s"}};
    for (const auto& unit : units) {
        if (ms != 0 && ms % unit.factor == 0) return std::to_string(ms / unit.factor) + unit.suffix;
    }
    return std::to_string(ms) + "ms";
}

}  // namespace skillhost
