#include "directory_walk.hpp"

#include "unique_fd.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <algorithm>
#include <vector>

namespace skillhost_builtin::fs {

namespace {

bool walk_level(int dir_fd, const std::string& prefix, const WalkOptions& options, int depth,
                const std::function<WalkControl(const WalkEntry&)>& visit) {
    int dup_fd = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    if (dup_fd < 0) return true;
    DIR* dir = ::fdopendir(dup_fd);
    if (!dir) {
        ::close(dup_fd);
        return true;  // unreadable directory: nothing to list in it
    }
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(dir)) {
        std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        if (!options.include_hidden && name.front() == '.') continue;
        names.push_back(std::move(name));
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
        WalkEntry entry;
        entry.parent_fd = dir_fd;
        entry.name = name;
        entry.relative_path = prefix == "." ? name : prefix + "/" + name;
        if (::fstatat(dir_fd, name.c_str(), &entry.st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // vanished
        if (options.admit && !options.admit(entry)) continue;
        if (visit(entry) == WalkControl::stop) return false;
        if (options.recursive && S_ISDIR(entry.st.st_mode) && depth < options.max_depth) {
            UniqueFd child(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (child.valid() && !walk_level(child.get(), entry.relative_path, options, depth + 1, visit)) return false;
        }
    }
    return true;
}

}  // namespace

bool walk_directory(int dir_fd, const std::string& prefix, const WalkOptions& options,
                    const std::function<WalkControl(const WalkEntry&)>& visit) {
    return walk_level(dir_fd, prefix, options, 0, visit);
}

std::string file_type_name(const struct stat& st) {
    if (S_ISREG(st.st_mode)) return "file";
    if (S_ISDIR(st.st_mode)) return "directory";
    if (S_ISLNK(st.st_mode)) return "symlink";
    return "other";
}

}  // namespace skillhost_builtin::fs
