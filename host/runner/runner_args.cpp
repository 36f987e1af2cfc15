#include "runner/runner_args.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace skillhost::runner {
namespace {

// Moves this process into the cgroup leaf the host prepared (before the plugin's code runs, so
// everything it allocates counts).
bool join_cgroup(const std::string& leaf) {
    const int fd = ::open((leaf + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool joined = ::write(fd, "0", 1) == 1;
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return joined;
}

}  // namespace

RunnerArgs::RunnerArgs(int argc, char** argv, int first) {
    int i = first;
    for (; i < argc; ++i) {
        const std::string key = argv[i];
        if (key == "--") {
            ++i;
            break;
        }
        if (!key.starts_with("--") || i + 1 >= argc) continue;
        values_.emplace(key.substr(2), argv[++i]);
    }
    for (; i < argc; ++i) program_.emplace_back(argv[i]);
}

std::string RunnerArgs::text(const std::string& name) const {
    const auto [begin, end] = values_.equal_range(name);
    return begin == end ? std::string() : std::prev(end)->second;
}

std::vector<std::string> RunnerArgs::all(const std::string& name) const {
    std::vector<std::string> out;
    for (auto [it, end] = values_.equal_range(name); it != end; ++it) out.push_back(it->second);
    return out;
}

std::uint64_t RunnerArgs::number(const std::string& name, std::uint64_t fallback) const {
    const std::string value = text(name);
    if (value.empty()) return fallback;
    char* end = nullptr;
    const unsigned long long parsed = std::strtoull(value.c_str(), &end, 10);
    return end && *end == '\0' ? parsed : fallback;
}

SandboxRequest sandbox_request(const RunnerArgs& args) {
    SandboxRequest sandbox;
    const std::string mode = args.text("sandbox");
    sandbox.mode = mode == "off"       ? plugin::SandboxMode::off
                   : mode == "require" ? plugin::SandboxMode::require
                                       : plugin::SandboxMode::best_effort;
    sandbox.limits.memory_mb = args.number("memory-mb", sandbox.limits.memory_mb);
    sandbox.limits.cpu_seconds = args.number("cpu-seconds", 0);
    sandbox.limits.open_files = args.number("open-files", sandbox.limits.open_files);
    sandbox.limits.max_tasks = args.number("max-tasks", sandbox.limits.max_tasks);
    // Every leaf the host prepared (cgroup v2: one; v1: memory and pids), before the sandboxed
    // process is made, so it and everything it allocates count.
    for (const char* key : {"cgroup", "cgroup-pids"}) {
        const std::string leaf = args.text(key);
        if (leaf.empty()) continue;
        if (join_cgroup(leaf)) {
            sandbox.cgroup += (sandbox.cgroup.empty() ? "" : ", ") + leaf;
        } else {
            sandbox.cgroup_problem = "cannot join " + leaf + ": " + std::strerror(errno);
            sandbox.cgroup.clear();
            break;
        }
    }
    sandbox.runner_uid = static_cast<uid_t>(args.number("runner-uid", 0));
    sandbox.runner_gid = static_cast<gid_t>(args.number("runner-gid", 0));
    sandbox.disk_budget_bytes = args.number("disk-budget-bytes", 0);
    for (const std::string& path : args.all("read-only")) sandbox.read_only.emplace_back(path);
    if (const std::string data_dir = args.text("data-dir"); !data_dir.empty()) sandbox.read_write.push_back(data_dir);
    sandbox.workspace = args.text("workspace");
    const std::string access = args.text("workspace-access");
    sandbox.workspace_access = access == "read"         ? WorkspaceAccess::read
                               : access == "read_write" ? WorkspaceAccess::read_write
                                                        : WorkspaceAccess::none;
    sandbox.network = args.text("network") == "1";
    return sandbox;
}

}  // namespace skillhost::runner
