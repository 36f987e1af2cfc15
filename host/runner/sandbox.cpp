#include "runner/sandbox.hpp"
#include "plugin/error_codes.hpp"

#include "runner/filesystem_view.hpp"
#include "runner/namespaces.hpp"
#include "runner/privileges.hpp"
#include "runner/syscall_filter.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace skillhost::runner {
namespace {

// The Landlock ABI up to version 7, declared here because the system header may be older than the
// kernel. Layouts are the kernel's (include/uapi/linux/landlock.h).
struct RulesetAttr {
    std::uint64_t handled_access_fs;
    std::uint64_t handled_access_net;  // ABI 4
    std::uint64_t scoped;              // ABI 6
};
struct __attribute__((packed)) PathBeneathAttr {
    std::uint64_t allowed_access;
    std::int32_t parent_fd;
};
constexpr std::uint32_t rule_path_beneath = 1;
constexpr std::uint32_t create_ruleset_version = 1;

constexpr std::uint64_t fs_execute = 1ULL << 0;
constexpr std::uint64_t fs_write_file = 1ULL << 1;
constexpr std::uint64_t fs_read_file = 1ULL << 2;
constexpr std::uint64_t fs_read_dir = 1ULL << 3;
constexpr std::uint64_t fs_remove_dir = 1ULL << 4;
constexpr std::uint64_t fs_remove_file = 1ULL << 5;
constexpr std::uint64_t fs_make_char = 1ULL << 6;
constexpr std::uint64_t fs_make_dir = 1ULL << 7;
constexpr std::uint64_t fs_make_reg = 1ULL << 8;
constexpr std::uint64_t fs_make_sock = 1ULL << 9;
constexpr std::uint64_t fs_make_fifo = 1ULL << 10;
constexpr std::uint64_t fs_make_block = 1ULL << 11;
constexpr std::uint64_t fs_make_sym = 1ULL << 12;
constexpr std::uint64_t fs_refer = 1ULL << 13;      // ABI 2
constexpr std::uint64_t fs_truncate = 1ULL << 14;   // ABI 3
constexpr std::uint64_t fs_ioctl_dev = 1ULL << 15;  // ABI 5
constexpr std::uint64_t net_bind_tcp = 1ULL << 0;   // ABI 4
constexpr std::uint64_t net_connect_tcp = 1ULL << 1;
constexpr std::uint64_t scope_abstract_unix = 1ULL << 0;  // ABI 6
constexpr std::uint64_t scope_signal = 1ULL << 1;

constexpr std::uint64_t fs_read = fs_read_file | fs_read_dir;
constexpr std::uint64_t fs_write = fs_write_file | fs_remove_dir | fs_remove_file | fs_make_dir | fs_make_reg |
                                   fs_make_sym | fs_make_sock | fs_make_fifo | fs_truncate;

long landlock_create_ruleset(const RulesetAttr* attr, std::size_t size, std::uint32_t flags) {
    return ::syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

// Each system directory a dynamically linked library may need, read-only.
const char* const system_read_paths[] = {"/usr", "/lib", "/lib64", "/lib32", "/etc", "/proc", "/sys/devices/system/cpu",
                                         "/opt"};
// ... of which these hold programs (server mode may execute them).
const char* const system_program_paths[] = {"/usr", "/lib", "/lib64", "/lib32", "/opt"};
const char* const device_paths[] = {"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"};

struct Landlock {
    int abi = 0;
    std::uint64_t handled_fs = 0;
    std::uint64_t handled_net = 0;
    std::uint64_t scoped = 0;
};

// Adds a path-beneath rule; a path that does not exist is simply not granted.
void allow(int ruleset, const std::filesystem::path& path, std::uint64_t access, std::uint64_t handled) {
    if (path.empty()) return;
    const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        access &= fs_execute | fs_read_file | fs_write_file | fs_truncate | fs_ioctl_dev;
    PathBeneathAttr rule{access & handled, fd};
    ::syscall(SYS_landlock_add_rule, ruleset, rule_path_beneath, &rule, 0);
    ::close(fd);
}

// Returns the ABI applied (0: not available) and fills `problem` when the kernel refused.
int apply_landlock(const SandboxRequest& request, bool private_tmp, boost::json::object& report, std::string& problem) {
    const long abi = landlock_create_ruleset(nullptr, 0, create_ruleset_version);
    if (abi < 1) {
        problem = std::string("Landlock is not available (") + std::strerror(errno) + ")";
        return 0;
    }
    Landlock ll;
    ll.abi = static_cast<int>(abi);
    ll.handled_fs = fs_execute | fs_read | fs_write | fs_make_char | fs_make_block;
    if (ll.abi >= 2) ll.handled_fs |= fs_refer;
    if (ll.abi < 3) ll.handled_fs &= ~fs_truncate;
    if (ll.abi >= 5) ll.handled_fs |= fs_ioctl_dev;
    if (ll.abi >= 4 && !request.network) ll.handled_net = net_bind_tcp | net_connect_tcp;
    if (ll.abi >= 6) ll.scoped = scope_abstract_unix | scope_signal;

    RulesetAttr attr{ll.handled_fs, ll.handled_net, ll.scoped};
    const std::size_t size = ll.abi >= 6   ? sizeof attr
                             : ll.abi >= 4 ? offsetof(RulesetAttr, scoped)
                                           : offsetof(RulesetAttr, handled_access_net);
    const int ruleset = static_cast<int>(landlock_create_ruleset(&attr, size, 0));
    if (ruleset < 0) {
        problem = std::string("Landlock refused the ruleset (") + std::strerror(errno) + ")";
        return 0;
    }
    // Server mode executes its program (and what a script's "#!" names) from these; never from a
    // writable place.
    const std::uint64_t fs_run = request.exec ? fs_read | fs_execute : fs_read;
    for (const char* path : system_read_paths) allow(ruleset, path, fs_read, ll.handled_fs);
    for (const char* path : system_program_paths) allow(ruleset, path, fs_run, ll.handled_fs);
    for (const char* path : device_paths) allow(ruleset, path, fs_read | fs_write_file, ll.handled_fs);
    for (const auto& path : request.read_only) allow(ruleset, path, fs_run, ll.handled_fs);
    for (const auto& path : request.read_write) allow(ruleset, path, fs_read | fs_write | fs_refer, ll.handled_fs);
    // The view's own /tmp and /dev/shm (memory of its cgroup), never the host's.
    if (private_tmp) {
        allow(ruleset, "/dev/shm", fs_read | fs_write | fs_refer, ll.handled_fs);
        const auto* view = report.if_contains("view");
        const bool tmp_writable = view && view->is_object() && view->as_object().contains("tmp_writable") &&
                                  view->as_object().at("tmp_writable").as_bool();
        if (tmp_writable) allow(ruleset, "/tmp", fs_read | fs_write | fs_refer, ll.handled_fs);
    }
    if (!request.workspace.empty() && request.workspace_access != WorkspaceAccess::none)
        allow(ruleset, request.workspace,
              request.workspace_access == WorkspaceAccess::read ? fs_read : fs_read | fs_write | fs_refer,
              ll.handled_fs);
    const long restricted = ::syscall(SYS_landlock_restrict_self, ruleset, 0);
    const int saved = errno;
    ::close(ruleset);
    if (restricted != 0) {
        problem = std::string("Landlock could not restrict the runner (") + std::strerror(saved) + ")";
        return 0;
    }
    report["landlock_abi"] = ll.abi;
    report["filesystem"] = "restricted";
    report["exec"] = request.exec ? "system directories and the declared files only" : "denied";
    report["tcp"] =
        request.network ? "allowed" : (ll.handled_net != 0 ? "denied (landlock)" : "not restricted by landlock");
    report["scoped_signals_and_abstract_sockets"] = ll.scoped != 0;
    return ll.abi;
}

bool sanitizer_build() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

void set_limit(int resource, std::uint64_t value, boost::json::object& limits, const char* name) {
    if (value == 0) return;
    rlimit limit{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
    if (::setrlimit(resource, &limit) == 0) limits[name] = value;
}

// The namespaces, the view and the identity: everything that needs the privilege the runner
// starts with. Fills `report`; an error only where `require` must refuse.
std::optional<Error> isolate(const SandboxRequest& request, boost::json::object& report) {
    const bool root = ::geteuid() == 0;
    const bool require = request.mode == plugin::SandboxMode::require;
    ViewRequest view;
    view.read_only = request.read_only;
    view.read_write = request.read_write;
    if (request.workspace_access != WorkspaceAccess::none) {
        view.workspace = request.workspace;
        view.workspace_writable = request.workspace_access == WorkspaceAccess::read_write;
    }
    view.network = request.network;
    view.require = require;
    resolve_links(view);
    if (root) {
        if (std::optional<Error> problem = prepare_trees(view)) {
            if (require) return problem;
            report["view_problem"] = problem->message;
        }
    }
    NamespaceRequest ns;
    ns.network = request.network;
    ns.runner_uid = request.runner_uid;
    ns.runner_gid = request.runner_gid;
    ns.host_fd = request.host_fd;
    if (const auto ws = view.trees.find(view.workspace); !view.workspace.empty() && ws != view.trees.end())
        ns.idmapped_tree = ws->second;
    Result<NamespaceOutcome> entered = enter_namespaces(ns);
    if (!entered) {
        // Only the keeper gets here (the sandboxed process never fails before it returns).
        report["namespaces"] = entered.error().message;
        if (require) return entered.error();
        if (root) {
            if (std::optional<std::string> problem = become_runner_user(request.runner_uid, request.runner_gid)) {
                report["identity_problem"] = *problem;
            } else {
                report["uid"] = request.runner_uid;
            }
        }
        if (std::optional<std::string> problem = leave_session()) report["session_problem"] = *problem;
        return std::nullopt;
    }
    report["namespaces"] = request.network ? "user, pid, mount, ipc, uts, cgroup (network: the host's)"
                                           : "user, pid, mount, ipc, uts, cgroup, network (empty)";
    report["pid"] = entered->host_pid;
    report["uid"] = root ? static_cast<std::int64_t>(request.runner_uid) : static_cast<std::int64_t>(-1);
    report["identity"] =
        root ? "runner user " + std::to_string(request.runner_uid) + " in a user namespace, no capabilities"
             : std::string("the daemon's user, mapped into a user namespace, no capabilities");
    if (!entered->idmap_problem.empty()) report["workspace_problem"] = entered->idmap_problem;
    Result<boost::json::object> built = build_filesystem_view(view);
    if (!built) return built.error();  // half a view is no view: refuse whatever the mode
    report["view"] = std::move(built.value());
    ::sethostname("skillhost-runner", 16);
    if (std::optional<std::string> problem = leave_session()) {
        if (require) return Error{errors::kSandboxUnavailable, *problem};
        report["session_problem"] = *problem;
    } else {
        report["session"] = "no terminal (a session the host started), empty keyring";
    }
    if (std::optional<std::string> problem = drop_capabilities()) return Error{errors::kSandboxUnavailable, *problem};
    report["capabilities"] = capability_summary();
    return std::nullopt;
}

}  // namespace

Result<boost::json::object> apply_sandbox(const SandboxRequest& request) {
    boost::json::object report;
    report["mode"] = plugin::to_string(request.mode);
    if (request.mode != plugin::SandboxMode::off) {
        if (std::optional<Error> refused = isolate(request, report)) return *refused;
    }
    boost::json::object limits;
    set_limit(RLIMIT_NOFILE, request.limits.open_files, limits, "open_files");
    set_limit(RLIMIT_CPU, request.limits.cpu_seconds, limits, "cpu_seconds");
    set_limit(RLIMIT_FSIZE, request.disk_budget_bytes, limits, "file_size_bytes");
    if (!request.cgroup.empty()) {
        limits["memory"] = "cgroup memory limit (memfd, shared memory and page cache included)";
        limits["memory_bytes"] = request.limits.memory_mb << 20;
        limits["tasks"] = request.limits.max_tasks;
        limits["cgroup"] = request.cgroup;
    } else {
        limits["memory"] = "RLIMIT_AS";
        if (!request.cgroup_problem.empty()) limits["cgroup_problem"] = request.cgroup_problem;
        // RLIMIT_NPROC counts every task of the uid (the host's too): the host counts this
        // runner's threads instead and kills it past the limit (docs/isolation.md).
        if (request.limits.max_tasks > 0) {
            limits["tasks"] = request.limits.max_tasks;
            limits["tasks_enforced_by"] =
                "host: /proc/<pid>/stat thread count (every 20 ms in a call, 100 ms between), kill past the limit";
        }
        // Sanitizers reserve terabytes of address space: an address-space limit would stop the runner.
        if (!sanitizer_build()) set_limit(RLIMIT_AS, request.limits.memory_mb << 20, limits, "memory_bytes");
    }
    rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);  // a crash dump would hold the plugin's (and user's) data
    limits["core"] = 0;
    report["limits"] = std::move(limits);
    if (request.mode == plugin::SandboxMode::off) return report;

    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        if (request.mode == plugin::SandboxMode::require)
            return Error{errors::kSandboxUnavailable,
                         "the runner cannot set no_new_privs (" + std::string(std::strerror(errno)) +
                             "); set sandbox: best_effort in skillhost.yaml to run unsandboxed"};
    } else {
        report["no_new_privs"] = true;
    }

    std::string problem;
    if (apply_landlock(request, report.contains("view"), report, problem) == 0) {
        report["filesystem"] = "not restricted";
        report["landlock_problem"] = problem;
        if (request.mode == plugin::SandboxMode::require)
            return Error{errors::kSandboxUnavailable,
                         problem +
                             "; the plugin cannot be confined as `sandbox: require` demands; use a kernel with "
                             "Landlock (5.13+, enabled in the LSM list) or set sandbox: best_effort"};
    }
    if (std::optional<std::string> refused = install_syscall_filter(SyscallPolicy{request.network, request.exec})) {
        report["seccomp"] = false;
        report["seccomp_problem"] = *refused;
        if (request.mode == plugin::SandboxMode::require)
            return Error{errors::kSandboxUnavailable, *refused + "; set sandbox: best_effort to run without it"};
    } else {
        report["seccomp"] = "allowlist (anything else: ENOSYS; dangerous calls: EPERM)";
        if (!request.exec) report["exec"] = "denied";
        report["sockets"] = request.network ? "TCP and UDP over IPv4/IPv6; never packet, raw, netlink or unix"
                                            : "none (socketpair only)";
        report["processes"] = "denied (seccomp: fork, vfork, clone without CLONE_THREAD)";
    }
    return report;
}

}  // namespace skillhost::runner
