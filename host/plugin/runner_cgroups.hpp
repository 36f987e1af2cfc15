// Memory and task limits for runners through cgroup v2 (or v1's memory and pids hierarchies), where the host's own cgroup is delegated
// to it (systemd `Delegate=yes`, a container's private cgroup namespace): each runner gets a leaf
// cgroup with memory.max (real memory, unlike RLIMIT_AS, which counts reservations) and pids.max
// (threads included). Elsewhere runners fall back to RLIMIT_AS and the reason is reported.
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

namespace skillhost::plugin {

// Where the host's cgroup v2 group is, and whether it can hold runner leaves.
struct CgroupPlacement {
    bool available = false;
    std::string reason;  // why not, when not
    std::filesystem::path base;
    int version = 2;
    std::filesystem::path pids_base;  // cgroup v1: the host's group in the pids hierarchy
};

class RunnerCgroups {
public:
    // Finds the host's cgroup v2 directory (the "0::" line of `proc_self_cgroup`, under `mount`)
    // and checks that it can hold runner leaves. `require_cgroup2_mount` is false only in tests
    // that point `mount` at an ordinary directory.
    static CgroupPlacement detect(const std::filesystem::path& proc_self_cgroup = "/proc/self/cgroup",
                                  const std::filesystem::path& mount = "/sys/fs/cgroup",
                                  bool require_cgroup2_mount = true);
    // cgroup v1 (or the v1 side of a hybrid hierarchy): the host's groups in the memory and pids
    // hierarchies (the "N:memory:" and "N:pids:" lines), writable by the host. v1 lets a group
    // with processes have children, so the host stays where it is.
    static CgroupPlacement detect_v1(const std::filesystem::path& proc_self_cgroup = "/proc/self/cgroup",
                                     const std::filesystem::path& mount = "/sys/fs/cgroup");
    explicit RunnerCgroups(CgroupPlacement placement) : placement_(std::move(placement)) {}

    bool available() const;

    // A new leaf for one runner with its limits (0: not limited); the runner moves itself in
    // (writes 0 to <leaf>/cgroup.procs) before it loads the plugin. The first call moves the host
    // into a leaf of its own, because cgroup v2 lets a cgroup with processes have no children
    // that use controllers. Leaves are named runner-<host pid>-<name>-<n>; the first call also
    // removes empty leaves whose host is gone (killed before it could). Errors: CGROUP_FAILED (the
    // caller falls back to RLIMIT_AS).
    Result<std::filesystem::path> create_leaf(std::string_view name, std::uint64_t memory_bytes,
                                              std::uint64_t max_tasks);
    // cgroup v1: the pids leaf made with the memory leaf `leaf` (empty on v2, where one leaf holds both).
    std::filesystem::path pids_leaf_of(const std::filesystem::path& leaf) const;
    // Removes a leaf whose runner has exited (a cgroup with no process left).
    static void remove_leaf(const std::filesystem::path& leaf);

    // For /readyz: {"memory": "cgroup v2 ..." | "RLIMIT_AS", "reason": ...}.
    boost::json::object describe() const;

private:
    mutable std::mutex mutex_;
    CgroupPlacement placement_;
    bool prepared_ = false;
    bool swept_ = false;  // stale leaves of hosts that are gone: removed before the first leaf
    std::uint64_t next_leaf_ = 1;
};

// The host's runner cgroups, detected once (the host's cgroup is a property of the process).
RunnerCgroups& runner_cgroups();

}  // namespace skillhost::plugin
