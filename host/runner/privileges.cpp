#include "runner/privileges.hpp"

#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace skillhost::runner {
namespace {

std::string reason(const char* what) {
    return std::string(what) + " (" + std::strerror(errno) + ")";
}

}  // namespace

std::optional<std::string> leave_session() {
    if (::setsid() < 0 && errno != EPERM) return reason("cannot start a session of its own");
    if (::getsid(0) != ::getpid()) return "cannot start a session of its own (still in the daemon's)";
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
