// Walks a directory tree below an open directory descriptor without ever following a symbolic
// link, so a listing or search cannot leave the workspace root through a link.
#pragma once

#include <sys/stat.h>

#include <functional>
#include <string>

namespace skillhost_builtin::fs {

struct WalkEntry {
    int parent_fd = -1;  // open directory holding the entry (valid during the callback)
    std::string name;
    std::string relative_path;  // from the workspace root, '/'-separated
    struct stat st {};          // not following links
};

enum class WalkControl { next, stop };

struct WalkOptions {
    bool recursive = false;
    bool include_hidden = false;  // names starting with '.'
    int max_depth = 64;
    // Entries it refuses are neither visited nor descended into; empty admits every entry.
    std::function<bool(const WalkEntry&)> admit;
};

// Calls `visit` for each entry, sorted by name within a directory, parents before children.
// `prefix` is the relative path of `dir_fd` ("." for the root). Returns false when stopped.
bool walk_directory(int dir_fd, const std::string& prefix, const WalkOptions& options,
                    const std::function<WalkControl(const WalkEntry&)>& visit);

std::string file_type_name(const struct stat& st);

}  // namespace skillhost_builtin::fs
