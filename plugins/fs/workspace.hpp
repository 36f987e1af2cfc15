// The confinement boundary of the fs plugin. Every path a skill touches is resolved here, one
// component at a time relative to an open descriptor of the workspace root: `..` may not climb
// above the root, absolute paths must name the root, and symbolic links are followed by hand so
// their targets can be checked whole-component-wise against the root. Files are then opened by
// walking the resolved components with O_NOFOLLOW from the root descriptor, so a link swapped in
// after resolution (a TOCTOU race) fails instead of leading outside.
#pragma once

#include "fs_errors.hpp"
#include "unique_fd.hpp"

#include <skillhost/skill.hpp>

#include <sys/stat.h>

#include <string>
#include <string_view>
#include <vector>

namespace skillhost_builtin::fs {

struct ResolvedPath {
    PathContext context;                  // for error messages
    std::vector<std::string> components;  // below the root, no symlinks, no "." or ".."
    bool exists = false;                  // false: some trailing components do not exist yet
    std::size_t existing = 0;             // how many leading components exist
    struct stat st {};                    // of the full path, when it exists (not following links)

    // "a/b/c" relative to the root; "." for the root itself.
    std::string relative() const { return relative_prefix(components.size()); }
    std::string relative_prefix(std::size_t count) const;
    bool is_directory() const { return exists && S_ISDIR(st.st_mode); }
};

class Workspace {
public:
    // Opens the caller's workspace root. NO_WORKSPACE when the host configured none or it is
    // not an existing directory.
    explicit Workspace(const skillhost::Call& call);

    const std::string& root() const { return root_; }

    ResolvedPath resolve(std::string_view requested) const;

    // Opens the directory `path` names (which must exist) for reading entries.
    UniqueFd open_directory(const ResolvedPath& path) const;
    // Opens the existing file `path` names with `flags` (O_NOFOLLOW and O_CLOEXEC are added).
    UniqueFd open_file(const ResolvedPath& path, int flags) const;
    // Opens the directory that contains `path`'s last component, creating missing directories
    // when `create` is true (FILE_NOT_FOUND otherwise).
    UniqueFd open_parent(const ResolvedPath& path, bool create) const;

private:
    // Opens components[0, count) as directories from the root, never following a link.
    UniqueFd walk(const ResolvedPath& path, std::size_t count, bool create) const;
    // Strips the root from an absolute path's components; false when it is not inside.
    bool strip_root(std::vector<std::string>& components) const;

    std::string root_;                          // as configured
    std::vector<std::string> root_components_;  // as configured, when it has no ".."
    std::vector<std::string> real_components_;  // after realpath()
    UniqueFd root_fd_;
};

// Splits on '/', dropping empty and "." components.
std::vector<std::string> split_path(std::string_view path);

}  // namespace skillhost_builtin::fs
