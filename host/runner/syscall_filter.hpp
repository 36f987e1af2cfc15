// The runner's seccomp filter: an allowlist. A system call not on it answers EPERM; a few on it are
// allowed only with arguments that cannot reach outside the sandbox (socket families as the
// manifest's `network` grants, no set-user-ID or set-group-ID mode bits, no terminal injection,
// no limits or scheduling of other processes, threads but no processes or namespaces).
#pragma once

#include <linux/filter.h>

#include <optional>
#include <string>
#include <vector>

namespace skillhost::runner {

struct SyscallPolicy {
    bool network = false;  // AF_INET and AF_INET6 stream and datagram sockets
    bool exec = false;     // execve and execveat (server mode: Landlock decides which files)
};

// The BPF program (for tests and the report); empty when the architecture has no filter here.
std::vector<sock_filter> syscall_filter_program(const SyscallPolicy& policy);

// Installs it on this process (all threads it will have). Returns why not.
std::optional<std::string> install_syscall_filter(const SyscallPolicy& policy);

}  // namespace skillhost::runner
