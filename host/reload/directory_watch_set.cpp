#include "reload/directory_watch_set.hpp"
#include "reload/error_codes.hpp"

#include <spdlog/spdlog.h>

#include <sys/inotify.h>

#include <cerrno>
#include <cstring>
#include <set>

namespace skillhost::reload {

namespace {

// Directories, not files: an installer's rename into place is a MOVED_TO in the directory, which a
// watch on the old file would never see. IN_MASK_ADD because one inode may be both a wanted
// directory and an ancestor of another.
constexpr std::uint32_t kWantedMask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                                      IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_MASK_ADD;
constexpr std::uint32_t kAncestorMask =
    IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_MASK_ADD;

bool is_absent(int error) {
    return error == ENOENT || error == ENOTDIR;
}

Error watch_failed(const std::filesystem::path& dir, int error) {
    Error out;
    out.recode(errors::kWatchFailed);
    out.message = "cannot watch " + dir.string() + " for plugin changes: " + std::strerror(error);
    if (error == ENOSPC) {
        out.message +=
            " (the inotify watch limit is reached); raise fs.inotify.max_user_watches, e.g. "
            "`sysctl fs.inotify.max_user_watches=524288`";
        out.suggestions.push_back("sysctl fs.inotify.max_user_watches=524288");
    } else if (error == EACCES) {
        out.message += "; give the host read access to the directory";
    }
    out.details["directory"] = dir.string();
    out.details["errno"] = error;
    return out;
}

}  // namespace

void DirectoryWatchSet::want(const std::filesystem::path& dir, bool holds_manifests) {
    auto [it, inserted] = wanted_.try_emplace(dir);
    it->second.holds_manifests = it->second.holds_manifests || holds_manifests;
}

bool DirectoryWatchSet::holds_manifests(const std::filesystem::path& dir) const {
    auto it = wanted_.find(dir);
    return it != wanted_.end() && it->second.holds_manifests;
}

bool DirectoryWatchSet::any_missing() const {
    for (const auto& [dir, wanted] : wanted_)
        if (wanted.wd < 0) return true;
    return false;
}

bool DirectoryWatchSet::watch_ancestor(const std::filesystem::path& dir, Wanted& wanted,
                                       std::optional<Error>& failure) {
    for (auto ancestor = dir.parent_path(); !ancestor.empty(); ancestor = ancestor.parent_path()) {
        if (ancestors_.count(ancestor)) {
            wanted.ancestor = ancestor;
            return true;
        }
        const int wd = inotify_add_watch(fd_, ancestor.c_str(), kAncestorMask);
        if (wd >= 0) {
            ancestors_[ancestor] = wd;
            wanted.ancestor = ancestor;
            return true;
        }
        if (!is_absent(errno)) {
            failure = watch_failed(ancestor, errno);
            return false;
        }
        if (ancestor == ancestor.root_path()) break;
    }
    return false;
}

Result<std::vector<std::filesystem::path>> DirectoryWatchSet::attach_missing() {
    std::vector<std::filesystem::path> attached;
    std::optional<Error> failure;
    for (auto& [dir, wanted] : wanted_) {
        if (wanted.wd >= 0) continue;
        // Twice: if the directory appears between the first attempt and the ancestor watch, the
        // ancestor never reports it, so look again once the ancestor is watched.
        for (int attempt = 0; attempt < 2 && wanted.wd < 0; ++attempt) {
            const int wd = inotify_add_watch(fd_, dir.c_str(), kWantedMask);
            if (wd >= 0) {
                wanted.wd = wd;
                wanted.ancestor.reset();
                attached.push_back(dir);
                break;
            }
            if (!is_absent(errno)) {
                failure = watch_failed(dir, errno);
                break;
            }
            if (!watch_ancestor(dir, wanted, failure)) break;
        }
    }
    prune_ancestors();
    if (failure) {
        spdlog::error("{}", failure->message);
        return *failure;
    }
    return attached;
}

void DirectoryWatchSet::prune_ancestors() {
    std::set<std::filesystem::path> needed;
    std::set<int> wanted_wds;
    for (const auto& [dir, wanted] : wanted_) {
        if (wanted.wd < 0 && wanted.ancestor) needed.insert(*wanted.ancestor);
        if (wanted.wd >= 0) wanted_wds.insert(wanted.wd);
    }
    for (auto it = ancestors_.begin(); it != ancestors_.end();) {
        if (needed.count(it->first)) {
            ++it;
            continue;
        }
        // The same inode may also be a wanted directory; removing the watch would blind that one.
        if (!wanted_wds.count(it->second)) inotify_rm_watch(fd_, it->second);
        it = ancestors_.erase(it);
    }
}

DirectoryWatchSet::Lookup DirectoryWatchSet::find(int wd) const {
    Lookup lookup;
    for (const auto& [dir, wanted] : wanted_)
        if (wanted.wd == wd) lookup.dirs.push_back(dir);
    for (const auto& [dir, ancestor_wd] : ancestors_)
        if (ancestor_wd == wd) lookup.ancestor = true;
    return lookup;
}

std::vector<std::filesystem::path> DirectoryWatchSet::detach(int wd, bool still_attached) {
    std::vector<std::filesystem::path> lost;
    for (auto& [dir, wanted] : wanted_) {
        if (wanted.wd != wd) continue;
        wanted.wd = -1;
        lost.push_back(dir);
    }
    for (auto it = ancestors_.begin(); it != ancestors_.end();) {
        if (it->second == wd)
            it = ancestors_.erase(it);
        else
            ++it;
    }
    if (still_attached) inotify_rm_watch(fd_, wd);
    return lost;
}

}  // namespace skillhost::reload
