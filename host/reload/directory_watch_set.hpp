// The inotify watches behind PluginWatcher: one per wanted directory, and — while a wanted
// directory does not exist — one on its nearest existing ancestor, so its re-creation is seen.
#pragma once

#include "base/error.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <vector>

namespace skillhost::reload {

class DirectoryWatchSet {
public:
    // Borrows an inotify descriptor (owned by the watcher).
    explicit DirectoryWatchSet(int inotify_fd) : fd_(inotify_fd) {}

    // `dir` should be watched. `holds_manifests` marks a configured plugin directory (manifest
    // events there are units); otherwise it only holds libraries named by manifests elsewhere.
    void want(const std::filesystem::path& dir, bool holds_manifests);

    // Tries to watch every wanted directory that is not watched yet (watching ancestors of those
    // still missing). Returns the directories that are watched now and were not before: their
    // contents may have changed unseen. An Error (WATCH_FAILED) for anything but "does not exist",
    // e.g. the inotify watch limit; the directory then stays unwatched and is retried next time.
    Result<std::vector<std::filesystem::path>> attach_missing();

    struct Lookup {
        std::vector<std::filesystem::path> dirs;  // wanted directories this descriptor watches
        bool ancestor = false;                    // also watched as an ancestor of a missing one
    };
    Lookup find(int wd) const;
    bool holds_manifests(const std::filesystem::path& dir) const;
    bool any_missing() const;

    // The directory behind `wd` went away (deleted, moved, or its watch was dropped): forget the
    // descriptor, removing the kernel watch when it still exists (`still_attached`, e.g. after a
    // move). Returns the wanted directories that are now missing.
    std::vector<std::filesystem::path> detach(int wd, bool still_attached);

private:
    struct Wanted {
        bool holds_manifests = false;
        int wd = -1;  // -1 while missing
        std::optional<std::filesystem::path> ancestor;
    };
    bool watch_ancestor(const std::filesystem::path& dir, Wanted& wanted, std::optional<Error>& failure);
    void prune_ancestors();

    int fd_;
    std::map<std::filesystem::path, Wanted> wanted_;
    std::map<std::filesystem::path, int> ancestors_;  // ancestor dir -> wd
};

}  // namespace skillhost::reload
