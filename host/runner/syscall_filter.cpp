#include "runner/syscall_filter.hpp"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace skillhost::runner {
namespace {

#if defined(__x86_64__)
constexpr std::uint32_t audit_arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t audit_arch = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t audit_arch = 0;
#endif

constexpr std::uint32_t allow = SECCOMP_RET_ALLOW;
constexpr std::uint32_t eperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
constexpr std::uint32_t eacces = SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA);
constexpr std::uint32_t enosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);

constexpr std::uint32_t nr_offset = offsetof(seccomp_data, nr);
constexpr std::uint32_t arch_offset = offsetof(seccomp_data, arch);
constexpr std::uint32_t arg_offset(int index) {
    return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * index);  // low 32 bits (little endian)
}

constexpr std::uint32_t set_id_bits = S_ISUID | S_ISGID;
constexpr std::uint32_t namespace_flags =
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;

// What a plugin's code and the libraries it links call; on by number, whatever the arguments.
const int plain_allowed[] = {
    // The hot path first (the kernel caches always-allowed calls, but not on every version).
    SYS_read,
    SYS_write,
    SYS_futex,
    SYS_ppoll,
    SYS_recvmsg,
    SYS_sendmsg,
    SYS_recvfrom,
    SYS_sendto,
    SYS_close,
    SYS_mmap,
    SYS_munmap,
    SYS_mprotect,
    SYS_madvise,
    SYS_mremap,
    SYS_brk,
    SYS_msync,
    SYS_mincore,
    SYS_mlock,
    SYS_mlock2,
    SYS_munlock,
    SYS_mlockall,
    SYS_munlockall,
    SYS_clock_gettime,
    SYS_clock_getres,
    SYS_clock_nanosleep,
    SYS_nanosleep,
    SYS_gettimeofday,
    SYS_getrandom,
    SYS_sched_yield,
    SYS_sched_getaffinity,
    SYS_sched_getparam,
    SYS_sched_getscheduler,
    SYS_sched_get_priority_max,
    SYS_sched_get_priority_min,
    SYS_sched_rr_get_interval,
    SYS_getcpu,
    SYS_rseq,
    SYS_membarrier,
    SYS_set_robust_list,
    SYS_set_tid_address,
    SYS_exit,
    SYS_exit_group,
    SYS_wait4,
    SYS_waitid,
    SYS_kill,
    SYS_tkill,
    SYS_tgkill,
    SYS_rt_sigaction,
    SYS_rt_sigprocmask,
    SYS_rt_sigreturn,
    SYS_rt_sigpending,
    SYS_rt_sigtimedwait,
    SYS_rt_sigqueueinfo,
    SYS_rt_tgsigqueueinfo,
    SYS_rt_sigsuspend,
    SYS_sigaltstack,
    SYS_getpid,
    SYS_gettid,
    SYS_getppid,
    SYS_getuid,
    SYS_geteuid,
    SYS_getgid,
    SYS_getegid,
    SYS_getgroups,
    SYS_getresuid,
    SYS_getresgid,
    SYS_getpgid,
    SYS_getsid,
    SYS_setpgid,
    SYS_setsid,
    SYS_setuid,
    SYS_setgid,
    SYS_setreuid,
    SYS_setregid,
    SYS_setresuid,
    SYS_setresgid,
    SYS_setfsuid,
    SYS_setfsgid,
    SYS_setgroups,
    SYS_capget,
    SYS_capset,
    SYS_uname,
    SYS_sysinfo,
    SYS_times,
    SYS_getrusage,
    SYS_getrlimit,
    SYS_setrlimit,
    SYS_getpriority,
    SYS_personality,
    SYS_prctl,
    SYS_umask,
    SYS_timer_create,
    SYS_timer_settime,
    SYS_timer_gettime,
    SYS_timer_getoverrun,
    SYS_timer_delete,
    SYS_timerfd_create,
    SYS_timerfd_settime,
    SYS_timerfd_gettime,
    SYS_getitimer,
    SYS_setitimer,
    SYS_restart_syscall,
    // Files (inside the view Landlock and the mount namespace allow).
    SYS_newfstatat,
    SYS_fstat,
    SYS_statx,
    SYS_statfs,
    SYS_fstatfs,
    SYS_faccessat,
    SYS_faccessat2,
    SYS_lseek,
    SYS_pread64,
    SYS_pwrite64,
    SYS_readv,
    SYS_writev,
    SYS_preadv,
    SYS_pwritev,
    SYS_preadv2,
    SYS_pwritev2,
    SYS_getdents64,
    SYS_getcwd,
    SYS_chdir,
    SYS_fchdir,
    SYS_readlinkat,
    SYS_unlinkat,
    SYS_renameat,
    SYS_renameat2,
    SYS_linkat,
    SYS_symlinkat,
    SYS_fchownat,
    SYS_fchown,
    SYS_utimensat,
    SYS_truncate,
    SYS_ftruncate,
    SYS_fallocate,
    SYS_fsync,
    SYS_fdatasync,
    SYS_sync,
    SYS_syncfs,
    SYS_sync_file_range,
    SYS_flock,
    SYS_fcntl,
    SYS_dup,
    SYS_dup3,
    SYS_pipe2,
    SYS_close_range,
    SYS_readahead,
    SYS_fadvise64,
    SYS_copy_file_range,
    SYS_sendfile,
    SYS_splice,
    SYS_tee,
    SYS_vmsplice,
    SYS_getxattr,
    SYS_lgetxattr,
    SYS_fgetxattr,
    SYS_listxattr,
    SYS_llistxattr,
    SYS_flistxattr,
    SYS_setxattr,
    SYS_lsetxattr,
    SYS_fsetxattr,
    SYS_removexattr,
    SYS_lremovexattr,
    SYS_fremovexattr,
    SYS_inotify_init1,
    SYS_inotify_add_watch,
    SYS_inotify_rm_watch,
    SYS_memfd_create,
    SYS_eventfd2,
    SYS_signalfd4,
    SYS_epoll_create1,
    SYS_epoll_ctl,
    SYS_epoll_pwait,
    SYS_epoll_pwait2,
    SYS_pselect6,
    // Sockets it already has or may connect (which ones it may create: see socket below).
    SYS_connect,
    SYS_accept,
    SYS_accept4,
    SYS_bind,
    SYS_listen,
    SYS_shutdown,
    SYS_getsockname,
    SYS_getpeername,
    SYS_setsockopt,
    SYS_getsockopt,
    SYS_sendmmsg,
    SYS_recvmmsg,
    // System V IPC: the runner's own IPC namespace.
    SYS_shmget,
    SYS_shmat,
    SYS_shmdt,
    SYS_shmctl,
    SYS_semget,
    SYS_semop,
    SYS_semtimedop,
    SYS_semctl,
    SYS_msgget,
    SYS_msgsnd,
    SYS_msgrcv,
    SYS_msgctl,
    // Confining itself further.
    SYS_seccomp,
    SYS_landlock_create_ruleset,
    SYS_landlock_add_rule,
    SYS_landlock_restrict_self,
    SYS_pkey_mprotect,
    SYS_pkey_alloc,
    SYS_pkey_free,
    SYS_get_mempolicy,
#if defined(__x86_64__)
    SYS_arch_prctl,
    SYS_stat,
    SYS_lstat,
    SYS_poll,
    SYS_access,
    SYS_pipe,
    SYS_select,
    SYS_dup2,
    SYS_pause,
    SYS_alarm,
    SYS_getdents,
    SYS_rename,
    SYS_rmdir,
    SYS_link,
    SYS_unlink,
    SYS_symlink,
    SYS_readlink,
    SYS_chown,
    SYS_lchown,
    SYS_getpgrp,
    SYS_epoll_create,
    SYS_epoll_wait,
    SYS_eventfd,
    SYS_signalfd,
    SYS_inotify_init,
    SYS_time,
    SYS_utimes,
    SYS_futimesat,
#endif
#ifdef SYS_futex_waitv
    SYS_futex_waitv,
#endif
};

// Refused with EPERM by name, so a probe sees a refusal rather than a missing call.
const int refused[] = {
    SYS_ptrace,
    SYS_mount,
    SYS_umount2,
    SYS_pivot_root,
    SYS_chroot,
    SYS_unshare,
    SYS_setns,
    SYS_keyctl,
    SYS_add_key,
    SYS_request_key,
    SYS_perf_event_open,
    SYS_bpf,
    SYS_syslog,
    SYS_sethostname,
    SYS_setdomainname,
    SYS_settimeofday,
    SYS_clock_settime,
    SYS_clock_adjtime,
    SYS_adjtimex,
    SYS_init_module,
    SYS_finit_module,
    SYS_delete_module,
    SYS_kexec_load,
    SYS_reboot,
    SYS_swapon,
    SYS_swapoff,
    SYS_acct,
    SYS_quotactl,
    SYS_name_to_handle_at,
    SYS_open_by_handle_at,
    SYS_fanotify_init,
    SYS_userfaultfd,
    SYS_process_vm_readv,
    SYS_process_vm_writev,
    SYS_kcmp,
    SYS_pidfd_open,
    SYS_pidfd_send_signal,
    SYS_pidfd_getfd,
    SYS_io_uring_setup,
    SYS_io_uring_enter,
    SYS_io_uring_register,
    SYS_sched_setscheduler,
    SYS_sched_setattr,
    SYS_sched_setparam,
    SYS_ioprio_set,
    SYS_migrate_pages,
    SYS_move_pages,
    SYS_mbind,
    SYS_set_mempolicy,
    SYS_vhangup,
    SYS_open_tree,
    SYS_move_mount,
    SYS_fsopen,
    SYS_fsconfig,
    SYS_fsmount,
    SYS_fspick,
    SYS_mount_setattr,
    SYS_process_madvise,
    SYS_memfd_secret,
#if defined(__x86_64__)
    SYS_iopl,
    SYS_ioperm,
    SYS_modify_ldt,
    SYS_kexec_file_load,
    SYS_uselib,
    SYS_ustat,
    SYS_sysfs,
#endif
};

class Program {
public:
    void statement(std::uint16_t code, std::uint32_t k) { out_.push_back(BPF_STMT(code, k)); }
    void jump(std::uint16_t code, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) {
        out_.push_back(BPF_JUMP(code, k, jt, jf));
    }
    void ret(std::uint32_t action) { statement(BPF_RET | BPF_K, action); }
    void load_nr() { statement(BPF_LD | BPF_W | BPF_ABS, nr_offset); }
    void load_arg(int index) { statement(BPF_LD | BPF_W | BPF_ABS, arg_offset(index)); }
    // `number` answers `action` whatever its arguments.
    void on(int number, std::uint32_t action) {
        jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(number), 0, 1);
        ret(action);
    }
    // `number` runs `block` (which always returns); the accumulator holds the number again after it.
    void on(int number, const Program& block) {
        jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(number), 0,
             static_cast<std::uint8_t>(block.out_.size()));
        out_.insert(out_.end(), block.out_.begin(), block.out_.end());
    }
    std::vector<sock_filter> take() { return std::move(out_); }

private:
    std::vector<sock_filter> out_;
};

// Allowed unless the argument has any of `bits`.
Program unless_bits(int arg, std::uint32_t bits, std::uint32_t refusal) {
    Program p;
    p.load_arg(arg);
    p.jump(BPF_JMP | BPF_JSET | BPF_K, bits, 0, 1);
    p.ret(refusal);
    p.ret(allow);
    return p;
}

// Allowed only when the argument is 0 (this process or thread itself).
Program only_self(int arg) {
    Program p;
    p.load_arg(arg);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
    p.ret(allow);
    p.ret(eperm);
    return p;
}

// Allowed unless the argument is one of `values`.
Program unless_one_of(int arg, std::initializer_list<std::uint32_t> values) {
    Program p;
    p.load_arg(arg);
    for (std::uint32_t v : values) {
        p.jump(BPF_JMP | BPF_JEQ | BPF_K, v, 0, 1);
        p.ret(eperm);
    }
    p.ret(allow);
    return p;
}

Program socket_rule(bool network) {
    Program p;
    if (!network) {
        p.ret(eacces);
        return p;
    }
    p.load_arg(0);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 0, 5);
    p.load_arg(1);
    p.statement(BPF_ALU | BPF_AND | BPF_K, 0xf);  // the type without SOCK_NONBLOCK / SOCK_CLOEXEC
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 1, 0);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, SOCK_DGRAM, 0, 1);
    p.ret(allow);
    p.ret(eacces);  // packet, raw, netlink, vsock, unix, ...: never
    return p;
}

Program socketpair_rule() {
    Program p;
    p.load_arg(0);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1);
    p.ret(allow);
    p.ret(eacces);
    return p;
}

// Threads only: no process, and no thread in new namespaces.
Program clone_rule() {
    Program p;
    p.load_arg(0);
    p.jump(BPF_JMP | BPF_JSET | BPF_K, namespace_flags, 0, 1);
    p.ret(eperm);
    p.jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
    p.ret(allow);
    p.ret(eperm);
    return p;
}

}  // namespace

std::vector<sock_filter> syscall_filter_program(const SyscallPolicy& policy) {
    if (audit_arch == 0) return {};
    Program p;
    p.statement(BPF_LD | BPF_W | BPF_ABS, arch_offset);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, audit_arch, 1, 0);
    p.ret(SECCOMP_RET_KILL_PROCESS);
    p.load_nr();
    p.jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);  // the x32 numbering: nothing needs it
    p.ret(eacces);
    for (int number : plain_allowed) p.on(number, allow);
    p.on(SYS_execve, policy.exec ? allow : eacces);
    p.on(SYS_execveat, policy.exec ? allow : eacces);
#ifdef SYS_fork
    p.on(SYS_fork, eperm);
#endif
#ifdef SYS_vfork
    p.on(SYS_vfork, eperm);
#endif
    p.on(SYS_clone3, enosys);  // its flags are out of a filter's reach; the C library falls back to clone
    p.on(SYS_clone, clone_rule());
    p.on(SYS_socket, socket_rule(policy.network));
    p.on(SYS_socketpair, socketpair_rule());
    p.on(SYS_ioctl, unless_one_of(1, {TIOCSTI, TIOCLINUX, TIOCCONS, TIOCSCTTY}));
    p.on(SYS_openat, unless_bits(3, set_id_bits, eperm));
    p.on(SYS_mkdirat, unless_bits(2, set_id_bits, eperm));
    p.on(SYS_mknodat, unless_bits(2, set_id_bits, eperm));
    p.on(SYS_fchmod, unless_bits(1, set_id_bits, eperm));
    p.on(SYS_fchmodat, unless_bits(2, set_id_bits, eperm));
#if defined(__x86_64__)
    p.on(SYS_open, unless_bits(2, set_id_bits, eperm));
    p.on(SYS_creat, unless_bits(1, set_id_bits, eperm));
    p.on(SYS_mkdir, unless_bits(1, set_id_bits, eperm));
    p.on(SYS_mknod, unless_bits(1, set_id_bits, eperm));
    p.on(SYS_chmod, unless_bits(1, set_id_bits, eperm));
#endif
    p.on(SYS_prlimit64, only_self(0));
    p.on(SYS_setpriority, only_self(1));
    p.on(SYS_sched_setaffinity, only_self(0));
    p.on(SYS_ioprio_get, only_self(1));
    for (int number : refused) p.on(number, eperm);
    p.ret(enosys);  // anything else: as if this kernel lacked it (libraries fall back)
    return p.take();
}

std::optional<std::string> install_syscall_filter(const SyscallPolicy& policy) {
    std::vector<sock_filter> program = syscall_filter_program(policy);
    if (program.empty()) return "seccomp filter not built for this architecture";
    if (program.size() > BPF_MAXINSNS) return "the seccomp filter is too long for the kernel";
    sock_fprog filter{static_cast<unsigned short>(program.size()), program.data()};
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter) != 0)
        return std::string("seccomp refused the filter (") + std::strerror(errno) + ")";
    return std::nullopt;
}

}  // namespace skillhost::runner
