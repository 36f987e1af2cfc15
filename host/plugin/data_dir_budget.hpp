// A plugin's data directory for one user, as the host keeps it in bounds: how much it holds
// (counted by the host, outside the runner's reach) and, when the daemon runs as root, handing it
// to the runner's unprivileged user.
#pragma once

#include "base/error.hpp"

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>

namespace skillhost::plugin {

struct DataDirUsage {
    std::uint64_t bytes = 0;    // allocated blocks, so sparse files count what they take
    std::uint64_t entries = 0;  // files, directories and links
    bool over_entries = false;  // counting stopped at max_entries (the directory counts as over budget)
};

// Walks `dir` without following links, counting at most `max_entries` entries.
DataDirUsage measure_data_dir(const std::filesystem::path& dir, std::uint64_t max_entries = 100000);

// Error DISK_BUDGET_EXCEEDED when `usage` is over `budget_bytes` (0: no budget), naming the
// plugin, the directory, what it holds and how to fix it.
std::optional<Error> data_dir_over_budget(const DataDirUsage& usage, std::uint64_t budget_bytes,
                                          const std::string& plugin, const std::filesystem::path& dir);

// Gives `dir` and everything in it to uid:gid (lchown: a link is changed, never followed), where
// it is not theirs already. For a data directory written by an earlier root runner.
std::optional<Error> hand_over_data_dir(const std::filesystem::path& dir, uid_t uid, gid_t gid);

}  // namespace skillhost::plugin
