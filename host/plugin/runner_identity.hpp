// Who a plugin runner is on the host when the daemon runs as root: a dedicated unprivileged user,
// never root and never the daemon's. (An unprivileged daemon's runners get a user namespace
// instead; see runner/namespaces.hpp.)
#pragma once

#include "base/error.hpp"

#include <sys/types.h>

#include <string>
#include <string_view>

namespace skillhost::plugin {

struct RunnerIdentity {
    uid_t uid = 0;
    gid_t gid = 0;
    std::string described;  // "skillhost-runner (uid 998, gid 998)"
};

// The uid 65533 and gid 65533 runners get when isolation.runner_user is not set and the system
// has no `skillhost-runner` user: unassigned on Debian (65534 is `nobody`, shared with others).
constexpr uid_t fallback_runner_id = 65533;

// `configured`: a user name or "uid[:gid]" (isolation.runner_user); empty: `skillhost-runner`
// when the system has it, else fallback_runner_id. Error RUNNER_USER_INVALID for an unknown name,
// for uid or gid 0, or for the daemon's own uid.
Result<RunnerIdentity> resolve_runner_identity(std::string_view configured);

}  // namespace skillhost::plugin
