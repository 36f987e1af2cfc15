// The fs plugin's error values. Every message names the path as the caller wrote it and the
// workspace root, and says what to do next.
#pragma once

#include <skillhost/skill.hpp>

#include <string>
#include <string_view>

namespace skillhost_builtin::fs {

struct PathContext {
    std::string requested;  // the path as the caller wrote it
    std::string root;       // the workspace root
};

[[noreturn]] void throw_not_allowed(const PathContext& p, std::string_view reason, std::string_view explanation,
                                    skillhost::Json extra = skillhost::Json::object());
[[noreturn]] void throw_not_found(const PathContext& p, std::string_view missing_relative);
[[noreturn]] void throw_is_directory(const PathContext& p, std::string_view what_to_do);
[[noreturn]] void throw_not_directory(const PathContext& p, std::string_view file_relative);
[[noreturn]] void throw_too_long(const PathContext& p, std::string_view explanation);
// Maps an errno from a system call on `relative` to the matching error value.
[[noreturn]] void throw_errno(const PathContext& p, int err, std::string_view operation, std::string_view relative);

}  // namespace skillhost_builtin::fs
