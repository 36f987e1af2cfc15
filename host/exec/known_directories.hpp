// Directories the host has already created, so that a call does not pay for create_directories()
// (a stat per path component) every time: a user's workspace and plugin data directories are made
// once, on their first call. A directory removed behind the host's back is not made again until
// the cache forgets it (it holds at most `limit` paths and starts over when full).
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <system_error>
#include <unordered_set>

namespace skillhost::exec {

class KnownDirectories {
public:
    explicit KnownDirectories(std::size_t limit = 4096) : limit_(limit) {}

    // Creates `dir` (and its parents) unless it was created before; the error of the creation.
    std::error_code ensure(const std::string& dir);

private:
    const std::size_t limit_;
    std::mutex mutex_;
    std::unordered_set<std::string> known_;
};

}  // namespace skillhost::exec
