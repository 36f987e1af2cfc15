// The sandbox a plugin runner applies to itself before it loads the plugin: no new privileges,
// resource limits, Landlock file-system (and, where the kernel has it, TCP) rules, and a seccomp
// filter refusing exec and, unless the manifest declares network access, internet sockets.
#pragma once

#include "base/error.hpp"
#include "plugin/isolation_options.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <vector>

namespace skillhost::runner {

enum class WorkspaceAccess { none, read, read_write };

struct SandboxRequest {
    plugin::SandboxMode mode = plugin::SandboxMode::best_effort;
    plugin::RunnerLimits limits;
    std::vector<std::filesystem::path> read_only;   // the plugin's own directory, system libraries
    std::vector<std::filesystem::path> read_write;  // its per-user data directory
    std::filesystem::path workspace;
    WorkspaceAccess workspace_access = WorkspaceAccess::none;
    bool network = false;
    // The runner moved itself into a cgroup v2 leaf whose memory.max and pids.max the host set:
    // memory is not also limited by RLIMIT_AS (which counts reservations, not use).
    std::string cgroup;
    std::string cgroup_problem;  // why it could not join the leaf it was given
};

// Applies what the kernel offers. Returns what is enforced (shown by /readyz), or, with mode
// `require`, error SANDBOX_UNAVAILABLE naming the part the kernel lacks.
Result<boost::json::object> apply_sandbox(const SandboxRequest& request);

}  // namespace skillhost::runner
