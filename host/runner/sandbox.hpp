// The sandbox a plugin runner puts itself in before it loads the plugin, in layers (docs/isolation.md
// has the threat model): namespaces of its own with an identity that has nothing (namespaces.hpp),
// a file-system view with nothing of the host's (filesystem_view.hpp), no capability, session or
// keyring of the daemon's (privileges.hpp), no_new_privs, resource limits, Landlock rules and a
// seccomp allowlist (syscall_filter.hpp).
#pragma once

#include "base/error.hpp"
#include "plugin/isolation_options.hpp"

#include <boost/json/object.hpp>

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace skillhost::runner {

enum class WorkspaceAccess { none, read, read_write };

struct SandboxRequest {
    plugin::SandboxMode mode = plugin::SandboxMode::best_effort;
    plugin::RunnerLimits limits;
    std::vector<std::filesystem::path> read_only;   // the plugin's own directory
    std::vector<std::filesystem::path> read_write;  // its per-user data directory
    std::filesystem::path workspace;
    WorkspaceAccess workspace_access = WorkspaceAccess::none;
    bool network = false;
    // Server mode (runner/server_exec.hpp): the process will execve() the declared program, so the
    // system directories and the read-only paths may be executed (nothing writable ever may), and
    // execve is allowed; new processes stay refused.
    bool exec = false;
    // When the runner starts as root: the unprivileged identity the sandbox gets (never 0).
    uid_t runner_uid = 0;
    gid_t runner_gid = 0;
    std::uint64_t disk_budget_bytes = 0;  // RLIMIT_FSIZE: no file in it may grow past this (0: none)
    // The runner moved itself into cgroup leaves whose memory and pids limits the host set:
    // memory is not also limited by RLIMIT_AS (which counts reservations, not use).
    std::string cgroup;
    std::string cgroup_problem;  // why it could not join the leaf it was given
    int host_fd = 3;
};

// Applies every layer the kernel offers. Returns what is enforced (shown by /readyz and `skills
// show`), or, with mode `require`, error SANDBOX_UNAVAILABLE naming the mechanism the kernel lacks
// and how to enable it. With namespaces, the process that called it waits for the sandboxed one
// and never returns; the sandboxed process returns.
Result<boost::json::object> apply_sandbox(const SandboxRequest& request);

}  // namespace skillhost::runner
