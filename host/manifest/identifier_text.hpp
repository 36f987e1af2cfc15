// The shapes of names and texts a manifest or a foreign server declaration gives, checked character
// by character (no regex engine).
#pragma once

#include <cstddef>
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

// ^[A-Za-z_][A-Za-z0-9_]*$ — environment variables, secret names and input names.
bool is_variable_name(std::string_view text);
inline constexpr const char* kVariableShape =
    "letters, digits and _, not starting with a digit (pattern ^[A-Za-z_][A-Za-z0-9_]*$)";
// An HTTP field name: one or more token characters (RFC 9110).
bool is_header_name(std::string_view text);
inline constexpr const char* kHeaderShape = "letters, digits and !#$%&'*+-.^_`|~ only (no spaces or ':')";
// HTTP field names compare without regard to case.
bool same_header(std::string_view a, std::string_view b);
// 1 to 128 of [A-Za-z0-9_.-]: the names MCP servers give their tools.
inline constexpr std::size_t kMaxToolName = 128;
bool is_tool_name(std::string_view text);
// An npm package name: name or @scope/name, lowercase letters, digits and - . _ ~ (at most 214).
bool is_npm_name(std::string_view text);
// Digits and dots (1.4.2, 2026.8.31) with an optional -prerelease: one exact version, never a range.
bool is_exact_version(std::string_view text);
// "sha512-" and base64 text (padding only at the end), as package-lock.json's `integrity`.
bool is_sha512_integrity(std::string_view text);
bool has_nul(std::string_view text);
bool has_nul_or_line_break(std::string_view text);
// How often `part` (not empty) occurs in `text`, without overlaps.
std::size_t count_of(std::string_view text, std::string_view part);

}  // namespace skillhost::manifest
