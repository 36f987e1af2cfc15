// How the host starts a process of its own (a plugin runner, a foreign MCP server): in its own
// session, so it has no controlling terminal (a Ctrl-C meant for the host must not reach it, and
// nothing can be typed into the daemon's terminal), with no blocked signals and default handlers,
// whatever the spawning thread had.
#pragma once

#include <spawn.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace skillhost::plugin {

// posix_spawn() of `program` with `argv` (argv[0] included) and exactly the environment `env`,
// in a new session. Returns 0 and sets `pid`, or the error number.
int spawn_in_own_session(pid_t& pid, const std::string& program, const posix_spawn_file_actions_t& actions,
                         std::vector<std::string> argv, std::vector<std::string> env);

}  // namespace skillhost::plugin
