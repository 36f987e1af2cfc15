// The runner's own namespaces: user, PID, mount, IPC, UTS, cgroup and (without `network`) network.
// The runner process the host started (the "keeper") clones the sandboxed process into them, maps
// the sandbox's only user to an identity with nothing (a dedicated unprivileged uid when the host
// runs as root, the daemon's own uid inside a user namespace otherwise), tells the host the
// sandboxed pid, and then only waits for it and ends the same way. The sandboxed process returns
// from enter_namespaces() and goes on to build its view and drop what it holds.
#pragma once

#include "base/error.hpp"

#include <sys/types.h>

#include <optional>
#include <string>

namespace skillhost::runner {

struct NamespaceRequest {
    bool network = false;  // keep the host's network namespace (the manifest declares network)
    // Only when the runner starts as root: the unprivileged uid/gid the sandbox is mapped to.
    uid_t runner_uid = 0;
    gid_t runner_gid = 0;
    // A detached mount (prepare_trees) to show the sandbox as if its files were the sandbox's own:
    // the user's workspace when the host runs as root; -1: none.
    int idmapped_tree = -1;
    int host_fd = 3;  // where the keeper reports the sandboxed pid
};

struct NamespaceOutcome {
    pid_t host_pid = 0;         // the sandboxed process's pid in the host's PID namespace
    std::string idmap_problem;  // why `idmapped_tree` could not be idmapped (it is then left as it was)
    bool started_as_root = false;
};

// In the keeper: never returns when the clone succeeded (it waits and exits as the sandboxed
// process did). In the sandboxed process: returns its outcome. Error SANDBOX_UNAVAILABLE when the
// kernel refuses the namespaces (the keeper then goes on alone, as before: best_effort decides).
Result<NamespaceOutcome> enter_namespaces(const NamespaceRequest& request);

// Without namespaces, as root: become the unprivileged runner uid (no capabilities follow a
// change away from uid 0). Returns why not, when it could not.
std::optional<std::string> become_runner_user(uid_t uid, gid_t gid);

}  // namespace skillhost::runner
