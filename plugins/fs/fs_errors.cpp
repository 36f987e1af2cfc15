#include "fs_errors.hpp"

#include <cerrno>
#include <cstring>

namespace skillhost_builtin::fs {

using skillhost::Json;
using skillhost::SkillError;

namespace {

Json base_details(const PathContext& p) {
    return Json::object({{"path", p.requested}, {"root", p.root}});
}

std::string quoted(std::string_view s) {
    return "'" + std::string(s) + "'";
}

}  // namespace

void throw_not_allowed(const PathContext& p, std::string_view reason, std::string_view explanation, Json extra) {
    Json details = base_details(p);
    details["reason"] = std::string(reason);
    for (auto& m : extra.as_object()) details[m.first] = m.second;
    throw SkillError("PATH_NOT_ALLOWED",
                     "path " + quoted(p.requested) + " is not allowed: " + std::string(explanation) +
                         "; only paths inside the workspace root " + quoted(p.root) +
                         " can be used — pass a path relative to that root",
                     details);
}

void throw_not_found(const PathContext& p, std::string_view missing_relative) {
    Json details = base_details(p);
    details["missing"] = std::string(missing_relative);
    throw SkillError("FILE_NOT_FOUND",
                     "path " + quoted(p.requested) + " does not exist in the workspace root " + quoted(p.root) +
                         " (missing: " + quoted(missing_relative) +
                         "); list the directory with fs_list or look for the file by name with fs_search",
                     details);
}

void throw_is_directory(const PathContext& p, std::string_view what_to_do) {
    throw SkillError("IS_A_DIRECTORY",
                     "path " + quoted(p.requested) + " in the workspace root " + quoted(p.root) + " is a directory; " +
                         std::string(what_to_do),
                     base_details(p));
}

void throw_not_directory(const PathContext& p, std::string_view file_relative) {
    Json details = base_details(p);
    details["file"] = std::string(file_relative);
    throw SkillError("NOT_A_DIRECTORY",
                     "path " + quoted(p.requested) + " in the workspace root " + quoted(p.root) + " goes through " +
                         quoted(file_relative) +
                         ", which is a file, not a directory; use fs_read for files or fs_list on its directory",
                     details);
}

void throw_too_long(const PathContext& p, std::string_view explanation) {
    Json details = base_details(p);
    details["max_path_bytes"] = 4096;
    details["max_name_bytes"] = 255;
    std::string shown = p.requested.size() > 120 ? p.requested.substr(0, 120) + "..." : p.requested;
    details["path"] = shown;
    throw SkillError("PATH_TOO_LONG",
                     "path " + quoted(shown) + " is too long (" + std::string(explanation) +
                         "); the limits are 4096 bytes per path and 255 bytes per name inside the workspace root " +
                         quoted(p.root),
                     details);
}

void throw_errno(const PathContext& p, int err, std::string_view operation, std::string_view relative) {
    switch (err) {
        case ENOENT: throw_not_found(p, relative);
        case ENOTDIR: throw_not_directory(p, relative);
        case EISDIR: throw_is_directory(p, "pass a file path instead");
        case ENAMETOOLONG: throw_too_long(p, "the system refused a name as too long");
        case ELOOP:
            throw_not_allowed(p, "symlink_loop",
                              "resolving " + quoted(relative) +
                                  " met a symbolic link where none was expected (a symlink loop, or the tree changed "
                                  "while it was being accessed)");
        default: break;
    }
    Json details = base_details(p);
    details["errno"] = err;
    details["operation"] = std::string(operation);
    std::string code = err == EACCES || err == EPERM ? "PERMISSION_DENIED" : err == ENOSPC ? "NO_SPACE" : "IO_ERROR";
    throw SkillError(code,
                     std::string(operation) + " " + quoted(relative) + " in the workspace root " + quoted(p.root) +
                         " failed: " + std::strerror(err) +
                         (code == "PERMISSION_DENIED" ? "; the host process lacks permission for this path"
                                                      : "; check the file system and retry"),
                     details);
}

}  // namespace skillhost_builtin::fs
