#include "plugin/runner_cgroups.hpp"
#include "plugin/error_codes.hpp"

#include <signal.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace skillhost::plugin {
namespace {

namespace fs = std::filesystem;

constexpr long cgroup2_magic = 0x63677270;  // CGROUP2_SUPER_MAGIC
constexpr const char* host_leaf = "skillhost-host";

std::string read_small(const fs::path& file) {
    std::ifstream in(file);
    std::string text;
    std::getline(in, text, '\0');
    return text.substr(0, 64 * 1024);
}

// Writes `text` to a cgroup control file; the kernel answers with errno on refusal.
bool write_control(const fs::path& file, std::string_view text, std::string& problem) {
    std::ofstream out(file);
    out << text;
    out.flush();
    if (out) return true;
    problem = "cannot write '" + std::string(text) + "' to " + file.string() + " (" + std::strerror(errno) + ")";
    return false;
}

bool has_word(std::string_view list, std::string_view word) {
    std::size_t start = 0;
    while (start < list.size()) {
        std::size_t end = list.find_first_of(" \n", start);
        if (end == std::string_view::npos) end = list.size();
        if (list.substr(start, end - start) == word) return true;
        start = end + 1;
    }
    return false;
}

// "runner-<host pid>-...": the pid of the host that made the leaf (0 for any other name).
pid_t leaf_host(const std::string& name) {
    constexpr std::string_view prefix = "runner-";
    if (name.rfind(prefix, 0) != 0) return 0;
    pid_t pid = 0;
    std::size_t at = prefix.size();
    for (; at < name.size() && at < prefix.size() + 9 && name[at] >= '0' && name[at] <= '9'; ++at)
        pid = pid * 10 + (name[at] - '0');
    return at < name.size() && name[at] == '-' ? pid : 0;
}

// Leaves a host that is gone left behind (killed before it could remove them): removed once, when
// this host makes its first. A leaf with a process in it is busy and stays (rmdir refuses it).
void sweep_stale_leaves(const fs::path& dir) {
    if (dir.empty()) return;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const pid_t host = leaf_host(it->path().filename().string());
        if (host <= 0 || host == ::getpid()) continue;
        if (::kill(host, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to ask)
        ::rmdir(it->path().c_str());
    }
}

}  // namespace

CgroupPlacement RunnerCgroups::detect(const fs::path& proc_self_cgroup, const fs::path& mount,
                                      bool require_cgroup2_mount) {
    CgroupPlacement out;
    if (require_cgroup2_mount) {
        struct statfs info {};
        if (::statfs(mount.c_str(), &info) != 0 || info.f_type != cgroup2_magic) {
            out.reason = mount.string() + " is not a cgroup v2 mount (cgroup v1 or hybrid hierarchy)";
            return out;
        }
    }
    std::istringstream lines(read_small(proc_self_cgroup));
    std::string line, own;
    while (std::getline(lines, line))
        if (line.rfind("0::", 0) == 0) own = line.substr(3);
    if (own.empty() || own.front() != '/') {
        out.reason = "the host is in no cgroup v2 group (" + proc_self_cgroup.string() + " has no 0:: line)";
        return out;
    }
    out.base = mount / own.substr(1);
    // Already prepared by an earlier host in this group: the host's leaf is where we run now.
    if (out.base.filename() == host_leaf) out.base = out.base.parent_path();
    const std::string controllers = read_small(out.base / "cgroup.controllers");
    if (!has_word(controllers, "memory") || !has_word(controllers, "pids")) {
        out.reason = "the memory and pids controllers are not delegated to " + out.base.string();
        return out;
    }
    if (::access((out.base / "cgroup.subtree_control").c_str(), W_OK) != 0 || ::access(out.base.c_str(), W_OK) != 0) {
        out.reason = out.base.string() + " is not writable by the host (delegate it, e.g. systemd Delegate=yes)";
        return out;
    }
    out.available = true;
    return out;
}

CgroupPlacement RunnerCgroups::detect_v1(const fs::path& proc_self_cgroup, const fs::path& mount) {
    CgroupPlacement out;
    out.version = 1;
    std::istringstream lines(read_small(proc_self_cgroup));
    std::string line, memory, pids;
    while (std::getline(lines, line)) {
        // "4:memory:/path": the controllers are a comma list in the second field.
        const std::size_t first = line.find(':');
        const std::size_t second = first == std::string::npos ? first : line.find(':', first + 1);
        if (second == std::string::npos) continue;
        std::string controllers = line.substr(first + 1, second - first - 1);
        for (char& c : controllers)
            if (c == ',') c = ' ';
        if (has_word(controllers, "memory")) memory = line.substr(second + 1);
        if (has_word(controllers, "pids")) pids = line.substr(second + 1);
    }
    if (memory.empty() || pids.empty() || memory.front() != '/' || pids.front() != '/') {
        out.reason = "the host has no cgroup v1 memory and pids groups (" + proc_self_cgroup.string() + ")";
        return out;
    }
    out.base = mount / "memory" / memory.substr(1);
    out.pids_base = mount / "pids" / pids.substr(1);
    for (const fs::path& dir : {out.base, out.pids_base}) {
        if (::access(dir.c_str(), W_OK) != 0) {
            out.reason = dir.string() + " is not writable by the host (" + std::strerror(errno) +
                         "; run the daemon as root or delegate the group to its user)";
            return out;
        }
    }
    // (A root group has no pids.max of its own; its children do.)
    if (!fs::exists(out.base / "memory.limit_in_bytes") || !fs::exists(out.pids_base / "cgroup.procs")) {
        out.reason = "the cgroup v1 memory or pids controller lacks its limit files under " + mount.string();
        return out;
    }
    out.available = true;
    return out;
}

fs::path RunnerCgroups::pids_leaf_of(const fs::path& leaf) const {
    std::lock_guard lock(mutex_);
    if (placement_.version != 1 || leaf.empty()) return {};
    return placement_.pids_base / leaf.filename();
}

Result<fs::path> RunnerCgroups::create_leaf(std::string_view name, std::uint64_t memory_bytes,
                                            std::uint64_t max_tasks) {
    std::lock_guard lock(mutex_);
    if (!placement_.available) return Error{errors::kCgroupFailed, placement_.reason};
    std::string problem;
    if (!swept_) {
        sweep_stale_leaves(placement_.base);
        sweep_stale_leaves(placement_.pids_base);
        swept_ = true;
    }
    // The host's pid in the name: hosts sharing a group (tests, several daemons) never share a
    // leaf; one left by a host that died with that pid is empty and removed first.
    const std::string name_part =
        "runner-" + std::to_string(::getpid()) + "-" + std::string(name) + "-" + std::to_string(next_leaf_++);
    if (placement_.version == 1) {
        ::rmdir((placement_.base / name_part).c_str());
        ::rmdir((placement_.pids_base / name_part).c_str());
        const fs::path leaf = placement_.base / name_part;
        const fs::path pids = placement_.pids_base / name_part;
        std::error_code ec;
        fs::create_directory(leaf, ec);
        if (!ec) fs::create_directory(pids, ec);
        if (ec) {
            remove_leaf(leaf);
            return Error{errors::kCgroupFailed,
                         "cannot create " + name_part + " under the cgroup v1 hierarchies (" + ec.message() + ")"};
        }
        // Memory as the kernel counts it: anonymous memory, page cache, tmpfs, shared memory and
        // memfd pages alike; no swap to escape to.
        bool ok =
            memory_bytes == 0 || write_control(leaf / "memory.limit_in_bytes", std::to_string(memory_bytes), problem);
        if (ok && memory_bytes > 0 && fs::exists(leaf / "memory.memsw.limit_in_bytes"))
            ok = write_control(leaf / "memory.memsw.limit_in_bytes", std::to_string(memory_bytes), problem);
        if (ok && fs::exists(leaf / "memory.swappiness")) write_control(leaf / "memory.swappiness", "0", problem);
        if (ok && max_tasks > 0) ok = write_control(pids / "pids.max", std::to_string(max_tasks), problem);
        if (!ok) {
            remove_leaf(leaf);
            remove_leaf(pids);
            return Error{errors::kCgroupFailed, problem};
        }
        return leaf;
    }
    if (!prepared_) {
        std::error_code ec;
        fs::create_directories(placement_.base / host_leaf, ec);
        const bool moved =
            !ec && write_control(placement_.base / host_leaf / "cgroup.procs", std::to_string(::getpid()), problem);
        if (!moved || !write_control(placement_.base / "cgroup.subtree_control", "+memory +pids", problem)) {
            placement_.available = false;
            placement_.reason =
                ec ? "cannot create " + (placement_.base / host_leaf).string() + " (" + ec.message() + ")" : problem;
            return Error{errors::kCgroupFailed, placement_.reason};
        }
        prepared_ = true;
    }
    const fs::path leaf = placement_.base / name_part;
    ::rmdir(leaf.c_str());
    std::error_code ec;
    fs::create_directory(leaf, ec);
    if (ec) return Error{errors::kCgroupFailed, "cannot create " + leaf.string() + " (" + ec.message() + ")"};
    // oom.group: an out-of-memory kill ends the whole runner, never one thread of it.
    bool ok = write_control(leaf / "memory.oom.group", "1", problem);
    if (ok && memory_bytes > 0) ok = write_control(leaf / "memory.max", std::to_string(memory_bytes), problem);
    if (ok && memory_bytes > 0 && fs::exists(leaf / "memory.swap.max"))
        ok = write_control(leaf / "memory.swap.max", "0", problem);
    if (ok && max_tasks > 0) ok = write_control(leaf / "pids.max", std::to_string(max_tasks), problem);
    if (!ok) {
        remove_leaf(leaf);
        return Error{errors::kCgroupFailed, problem};
    }
    return leaf;
}

void RunnerCgroups::remove_leaf(const fs::path& leaf) {
    if (leaf.empty()) return;
    // A runner killed through its keeper takes its sandbox down a moment later (the kernel ends a
    // PID namespace after its init): wait for the leaf to empty, at most 2 s, or it leaks.
    for (int i = 0; i < 400; ++i) {
        if (::rmdir(leaf.c_str()) == 0 || errno != EBUSY) return;
        ::usleep(5000);
    }
}

bool RunnerCgroups::available() const {
    std::lock_guard lock(mutex_);
    return placement_.available;
}

boost::json::object RunnerCgroups::describe() const {
    std::lock_guard lock(mutex_);
    if (placement_.available && placement_.version == 1)
        return {{"memory", "cgroup v1 memory.limit_in_bytes"},
                {"tasks", "cgroup v1 pids.max"},
                {"base", placement_.base.string()},
                {"pids_base", placement_.pids_base.string()}};
    if (placement_.available)
        return {
            {"memory", "cgroup v2 memory.max"}, {"tasks", "cgroup v2 pids.max"}, {"base", placement_.base.string()}};
    return {{"memory", "RLIMIT_AS"},
            {"tasks", "one process (seccomp); threads bounded by memory"},
            {"reason", placement_.reason}};
}

RunnerCgroups& runner_cgroups() {
    // Never destroyed: a call that outlives main() (a runner still starting while the process runs
    // its static destructors) may still ask for a leaf.
    static RunnerCgroups* const cgroups = new RunnerCgroups([] {
        CgroupPlacement v2 = RunnerCgroups::detect();
        if (v2.available) return v2;
        CgroupPlacement v1 = RunnerCgroups::detect_v1();
        if (v1.available) return v1;
        v2.reason += "; " + v1.reason;
        return v2;
    }());
    return *cgroups;
}

}  // namespace skillhost::plugin
