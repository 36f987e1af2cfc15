// Server mode of skillhost-runner: the host starts `skillhost-runner --exec-server OPTIONS -- PROGRAM
// ARGS...` for a foreign stdio MCP server (plugin/foreign_process.hpp). The runner puts itself in the
// sandbox a third-party plugin runner gets (namespaces, the file-system view, no capabilities, limits,
// Landlock, seccomp), with two differences: the system program directories and the declared
// read-only paths may be executed, and execve is allowed. Then it becomes the program. Its stdin,
// stdout and stderr are the server's; fd 3 tells the host how it went, in runner frames:
//   sandboxed (pid in the host's PID namespace, from the keeper, when there are namespaces)
//   ready     (ReadyInfo: sandbox_json says what is enforced), just before execve
//   load_failed (an Error), when the sandbox was refused or execve failed; the runner then exits 127.
// fd 3 is close-on-exec: end of file after `ready` means the program runs.
#pragma once

namespace skillhost::runner {

// Never returns when the program was started; returns the exit status otherwise.
int exec_server(int argc, char** argv);

}  // namespace skillhost::runner
