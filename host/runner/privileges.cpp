#include "runner/privileges.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace skillhost::runner {
namespace {

std::string reason(const char* what) {
    return std::string(what) + " (" + std::strerror(errno) + ")";
}

// The controlling terminal's device number from /proc/self/stat (0: none); nullopt when it cannot
// be read. The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
std::optional<long> controlling_terminal() {
    const int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    char text[1024];
    const ssize_t got = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (got <= 0) return std::nullopt;
    text[got] = '\0';
    const char* at = std::strrchr(text, ')');
    if (!at) return std::nullopt;
    // After ')': state, ppid, pgrp, session, tty_nr.
    char state = 0;
    long ppid = 0, pgrp = 0, session = 0, tty = 0;
    if (std::sscanf(at + 1, " %c %ld %ld %ld %ld", &state, &ppid, &pgrp, &session, &tty) != 5) return std::nullopt;
    return tty;
}

}  // namespace

std::optional<std::string> leave_session() {
    // The host starts the runner in a session of its own (POSIX_SPAWN_SETSID), and a sandboxed
    // runner stays in it, below its keeper: what matters is that no terminal is attached, and a
    // new session (which also makes a scheduler autogroup, about a millisecond) is started only
    // when one is.
    if (std::optional<long> tty = controlling_terminal(); !tty || *tty != 0) {
        if (::setsid() < 0 && errno != EPERM) return reason("cannot start a session of its own");
        if (controlling_terminal().value_or(-1) != 0) return "cannot leave the daemon's terminal";
    }
    if (::syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, nullptr) < 0)
        return reason("cannot leave the daemon's session keyring");
    return std::nullopt;
}

std::optional<std::string> drop_capabilities() {
    // Locked first, while CAP_SETPCAP is still held: no later change of uid gives anything back.
    const unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                               SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
                               SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    if (::prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0) return reason("cannot lock the securebits");
    for (int cap = 0; cap <= 63; ++cap) {
        if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
            return reason("cannot drop a capability from the bounding set");
    }
    ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct none[2] = {};
    if (::syscall(SYS_capset, &header, none) != 0) return reason("cannot clear the capability sets");
    return std::nullopt;
}

std::string capability_summary() {
    std::ifstream status("/proc/self/status");
    std::string line, out;
    while (std::getline(status, line)) {
        if (line.rfind("Cap", 0) == 0) {
            if (!out.empty()) out += ", ";
            for (char& c : line)
                if (c == '\t') c = ' ';
            out += line;
        }
    }
    return out;
}

}  // namespace skillhost::runner
