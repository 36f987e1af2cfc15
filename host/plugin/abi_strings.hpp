// Conversions between the ABI's (pointer, size) string views and std::string_view.
#pragma once

#include <skillhost/skill_abi.h>

#include <string_view>

namespace skillhost::plugin {

// A plugin may pass {nullptr, n} by mistake; that reads as empty rather than crashing the host.
inline std::string_view from_abi(skillhost_string_view s) noexcept {
    return s.data ? std::string_view(s.data, s.size) : std::string_view();
}

inline skillhost_string_view to_abi(std::string_view s) noexcept {
    return {s.data(), s.size()};
}

// A NUL-terminated descriptor string that may be NULL.
inline std::string_view from_abi(const char* s) noexcept {
    return s ? std::string_view(s) : std::string_view();
}

}  // namespace skillhost::plugin
