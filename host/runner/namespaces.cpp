#include "runner/namespaces.hpp"
#include "plugin/error_codes.hpp"

#include "plugin/runner_protocol.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace skillhost::runner {
namespace {

// What the keeper tells the sandboxed process once its user is mapped (one write on a pipe).
struct Handover {
    std::int32_t host_pid = 0;
    std::int32_t idmap_errno = 0;  // 0: the idmapped tree is ready (or none was asked for)
};

bool write_file(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return ok;
}

std::string reason(const char* what) {
    return std::string(what) + " (" + std::strerror(errno) + ")";
}

// Maps the sandbox's uid 0 (and gid 0) to the identity it has on the host.
std::optional<std::string> map_user(pid_t child, const NamespaceRequest& request, bool root) {
    const std::string proc = "/proc/" + std::to_string(child);
    const uid_t uid = root ? request.runner_uid : ::geteuid();
    const gid_t gid = root ? request.runner_gid : ::getegid();
    // Without CAP_SETGID in the host's namespace the kernel maps a gid only with setgroups denied.
    if (!root && !write_file(proc + "/setgroups", "deny"))
        return reason("cannot deny setgroups in the runner's user namespace");
    if (!write_file(proc + "/uid_map", "0 " + std::to_string(uid) + " 1\n"))
        return reason("cannot map the runner's user");
    if (!write_file(proc + "/gid_map", "0 " + std::to_string(gid) + " 1\n"))
        return reason("cannot map the runner's group");
    return std::nullopt;
}

// The workspace as the sandbox's user owns it: files of the daemon's uid appear as the sandbox's
// own, and what it writes is the daemon's on disk (as an unsandboxed plugin's files would be).
int idmap_tree(int tree, pid_t child) {
    const std::string ns = "/proc/" + std::to_string(child) + "/ns/user";
    const int userns = ::open(ns.c_str(), O_RDONLY | O_CLOEXEC);
    if (userns < 0) return errno;
    mount_attr attr{};
    attr.attr_set = MOUNT_ATTR_IDMAP;
    attr.userns_fd = static_cast<std::uint64_t>(userns);
    const long set = ::syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr);
    const int saved = set == 0 ? 0 : errno;
    ::close(userns);
    return saved;
}

bool read_all(int fd, void* data, std::size_t size) {
    auto* at = static_cast<char*>(data);
    while (size > 0) {
        const ssize_t got = ::read(fd, at, size);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        at += got;
        size -= static_cast<std::size_t>(got);
    }
    return true;
}

// Ends this process the way a wait status says another ended (core dumps are off).
[[noreturn]] void end_as(int status) {
    if (WIFEXITED(status)) std::_Exit(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        ::signal(sig, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, sig);
        ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
        ::kill(::getpid(), sig);
    }
    std::_Exit(71);
}

// The sandboxed pid as the host sees it: the only child of the namespace's init.
pid_t child_of(pid_t parent) {
    const std::string children = "/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children";
    char text[64] = {};
    const int fd = ::open(children.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        const ssize_t got = ::read(fd, text, sizeof text - 1);
        ::close(fd);
        if (got > 0) return static_cast<pid_t>(std::strtol(text, nullptr, 10));
    }
    return 0;
}

// The namespace's init (pid 1): the kernel ignores signals a pid 1 sends itself without a handler,
// so a plugin's abort() or raise() must not run there. It waits for the runner (pid 2) and tells
// the keeper how it ended.
[[noreturn]] void be_init(pid_t runner, int status_fd) {
    ::syscall(SYS_close_range, 0U, static_cast<unsigned>(status_fd) - 1, 0);
    ::syscall(SYS_close_range, static_cast<unsigned>(status_fd) + 1, ~0U, 0);
    int status = 0;
    while (::waitpid(runner, &status, 0) < 0) {
        if (errno != EINTR) std::_Exit(70);
    }
    [[maybe_unused]] const ssize_t written = ::write(status_fd, &status, sizeof status);
    std::_Exit(0);
}

// The keeper: drops to the runner user and lives exactly as long as the sandbox, ending as the
// runner ended (so the host's supervision reads the same status).
[[noreturn]] void keep(pid_t init, int status_fd, const NamespaceRequest& request, bool root) {
    // Nothing of the host's stays open here: the sandboxed process holds the only copies of the
    // host's socket and output pipe, so the host sees their end when it ends.
    ::syscall(SYS_close_range, 0U, static_cast<unsigned>(status_fd) - 1, 0);
    ::syscall(SYS_close_range, static_cast<unsigned>(status_fd) + 1, ~0U, 0);
    if (root) become_runner_user(request.runner_uid, request.runner_gid);
    ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    int runner_status = 0;
    const bool told = read_all(status_fd, &runner_status, sizeof runner_status);
    int status = 0;
    while (::waitpid(init, &status, 0) < 0) {
        if (errno != EINTR) std::_Exit(70);
    }
    end_as(told ? runner_status : status);
}

}  // namespace

std::optional<std::string> become_runner_user(uid_t uid, gid_t gid) {
    if (::setgroups(0, nullptr) != 0) return reason("cannot drop supplementary groups");
    if (::setresgid(gid, gid, gid) != 0) return reason("cannot change to the runner group");
    if (::setresuid(uid, uid, uid) != 0) return reason("cannot change to the runner user");
    return std::nullopt;
}

Result<NamespaceOutcome> enter_namespaces(const NamespaceRequest& request) {
    NamespaceOutcome outcome;
    outcome.started_as_root = ::geteuid() == 0;
    const bool root = outcome.started_as_root;
    if (root && request.runner_uid == 0)
        return Error{errors::kSandboxUnavailable, "the runner user must not be root; set isolation.runner_user"};
    // The sandboxed process starts with no supplementary group of the daemon's.
    if (root && ::setgroups(0, nullptr) != 0)
        return Error{errors::kSandboxUnavailable, reason("cannot drop the daemon's supplementary groups")};

    const int tree = root ? request.idmapped_tree : -1;
    // sync: keeper -> init (the user is mapped); status: init -> keeper ('f' once the runner is
    // forked, then its wait status); go: keeper -> runner (the host knows its pid).
    int sync[2], status[2], go[2];
    if (::pipe2(sync, O_CLOEXEC) != 0)
        return Error{errors::kSandboxUnavailable, reason("cannot create start-up pipes")};
    if (::pipe2(status, O_CLOEXEC) != 0 || ::pipe2(go, O_CLOEXEC) != 0) {
        const Error error{errors::kSandboxUnavailable, reason("cannot create start-up pipes")};
        ::close(sync[0]);
        ::close(sync[1]);
        return error;
    }
    auto close_all = [&] {
        for (int fd : {sync[0], sync[1], status[0], status[1], go[0], go[1]})
            if (fd >= 0) ::close(fd);
    };
    unsigned long flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
    if (!request.network) flags |= CLONE_NEWNET;
    // The raw system call: fork semantics (same stack) into new namespaces. The process is
    // single-threaded here; the init forks the runner with the C library's fork(), which sets the
    // runner's thread id right.
    const long child = ::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
    if (child < 0) {
        const std::string why = reason("the kernel refused new user, PID, mount, IPC, UTS and network namespaces");
        close_all();
        return Error{errors::kSandboxUnavailable,
                     why +
                         "; enable user namespaces (sysctl user.max_user_namespaces=15000 and, on Debian "
                         "kernels, kernel.unprivileged_userns_clone=1; in a container allow clone/unshare of "
                         "namespaces in its seccomp profile)"};
    }
    if (child == 0) {
        // The namespace's init: die with the keeper, wait until it has mapped our user.
        ::close(sync[1]);
        ::close(status[0]);
        ::close(go[1]);
        Handover handover;
        if (!read_all(sync[0], &handover, sizeof handover) || handover.host_pid <= 0) std::_Exit(72);
        ::close(sync[0]);
        // Our own namespace's root, with every capability in it and none outside it.
        if (::setresgid(0, 0, 0) != 0 || ::setresuid(0, 0, 0) != 0) std::_Exit(73);
        // After the change of user, which clears it. (A keeper dead before this closes the go pipe:
        // the runner then ends by itself, and the init with it.)
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        const pid_t runner = ::fork();
        if (runner < 0) std::_Exit(74);
        if (runner > 0) {
            ::close(go[0]);
            [[maybe_unused]] const ssize_t forked = ::write(status[1], "f", 1);
            be_init(runner, status[1]);
        }
        // The runner (pid 2): dies with the init, and waits until the host knows its pid.
        ::close(status[1]);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        std::int32_t host_pid = 0;
        if (!read_all(go[0], &host_pid, sizeof host_pid)) std::_Exit(75);
        ::close(go[0]);
        outcome.host_pid = host_pid;
        if (handover.idmap_errno != 0)
            outcome.idmap_problem =
                std::string("cannot idmap the workspace mount (") + std::strerror(handover.idmap_errno) + ")";
        return outcome;
    }

    ::close(sync[0]);
    ::close(status[1]);
    ::close(go[0]);
    const pid_t init = static_cast<pid_t>(child);
    if (std::optional<std::string> problem = map_user(init, request, root)) {
        ::kill(init, SIGKILL);
        ::waitpid(init, nullptr, 0);
        ::close(sync[1]);
        ::close(status[0]);
        ::close(go[1]);
        return Error{errors::kSandboxUnavailable, *problem + "; the runner cannot get an identity of its own"};
    }
    Handover handover;
    handover.host_pid = init;
    if (tree >= 0) handover.idmap_errno = idmap_tree(tree, init);
    char forked = 0;
    if (::write(sync[1], &handover, sizeof handover) != static_cast<ssize_t>(sizeof handover) ||
        !read_all(status[0], &forked, 1)) {
        ::kill(init, SIGKILL);
    }
    ::close(sync[1]);
    // The host learns the runner's pid from the keeper before any plugin code can speak.
    const pid_t runner = child_of(init);
    if (runner > 0) {
        plugin::wire::PayloadWriter w;
        w.integer(runner);
        plugin::wire::write_frame(request.host_fd, plugin::wire::FrameType::sandboxed, 0, w.bytes());
    }
    const std::int32_t told = runner;
    [[maybe_unused]] const ssize_t sent = ::write(go[1], &told, sizeof told);
    ::close(go[1]);
    ::close(request.host_fd);
    keep(init, status[0], request, root);
}

}  // namespace skillhost::runner
