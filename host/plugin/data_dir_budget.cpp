#include "plugin/data_dir_budget.hpp"
#include "plugin/error_codes.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace skillhost::plugin {
namespace {

namespace fs = std::filesystem;

std::string mib(std::uint64_t bytes) {
    return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

}  // namespace

DataDirUsage measure_data_dir(const fs::path& dir, std::uint64_t max_entries) {
    DataDirUsage usage;
    std::error_code ec;
    // Iterative (the iterator keeps its own stack), never following a link out of the directory.
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        if (++usage.entries > max_entries) {
            usage.over_entries = true;
            break;
        }
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) == 0) usage.bytes += static_cast<std::uint64_t>(st.st_blocks) * 512;
    }
    return usage;
}

std::optional<Error> data_dir_over_budget(const DataDirUsage& usage, std::uint64_t budget_bytes,
                                          const std::string& plugin, const fs::path& dir) {
    if (budget_bytes == 0 || (usage.bytes <= budget_bytes && !usage.over_entries)) return std::nullopt;
    Error error{errors::kDiskBudgetExceeded,
                usage.over_entries
                    ? "plugin '" + plugin + "' keeps over " + std::to_string(usage.entries - 1) + " files in " +
                          dir.string() + "; remove some, or ask its author why it keeps so many"
                    : "plugin '" + plugin + "' holds " + mib(usage.bytes) + " in " + dir.string() +
                          ", over its budget of " + mib(budget_bytes) +
                          "; remove files from that directory or raise isolation.disk_budget_mb in skillhost.yaml"};
    error.details["plugin"] = plugin;
    error.details["data_dir"] = dir.string();
    error.details["bytes"] = usage.bytes;
    error.details["budget_bytes"] = budget_bytes;
    return error;
}

std::optional<Error> hand_over_data_dir(const fs::path& dir, uid_t uid, gid_t gid) {
    auto give = [&](const fs::path& path) -> std::optional<Error> {
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0) return std::nullopt;
        if (st.st_uid == uid && st.st_gid == gid) return std::nullopt;
        if (::lchown(path.c_str(), uid, gid) != 0)
            return Error{errors::kDataDirUnavailable, "cannot give " + path.string() + " to the runner user (" +
                                                          std::strerror(errno) + "); check that the home is writable"};
        return std::nullopt;
    };
    struct stat top {};
    if (::lstat(dir.c_str(), &top) != 0) return std::nullopt;
    if (top.st_uid == uid && top.st_gid == gid) return std::nullopt;  // handed over before
    if (auto problem = give(dir)) return problem;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end; !ec && it != end;
         it.increment(ec))
        if (auto problem = give(it->path())) return problem;
    return std::nullopt;
}

}  // namespace skillhost::plugin
