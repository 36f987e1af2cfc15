// The shapes of names a manifest declares, checked character by character (no regex engine).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace skillhost::manifest {

// ^[a-z][a-z0-9_]*$ — skill ids.
bool is_skill_id(std::string_view text);
// ^[a-z][a-z0-9_-]*$ — plugin names.
bool is_plugin_name(std::string_view text);
// ^[A-Z][A-Z0-9_]*$ — error codes.
bool is_error_code(std::string_view text);

struct MajorMinor {
    std::uint32_t major = 0;
    std::uint32_t minor = 0;
};
// "major.minor", each 1 to 9 digits.
std::optional<MajorMinor> parse_major_minor(std::string_view text);

}  // namespace skillhost::manifest
