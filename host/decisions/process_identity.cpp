#include "decisions/process_identity.hpp"

#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace skillhost::decisions {

namespace {

struct ProcStat {
    bool found = false;
    char state = '?';
    std::int64_t start_ticks = 0;
};

ProcStat read_proc_stat(std::int64_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    ProcStat stat;
    std::string line;
    if (!in || !std::getline(in, line)) return stat;
    // The command name (field 2) may contain spaces and parentheses: fields resume after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) return stat;
    std::istringstream fields(line.substr(close + 1));
    std::string field;
    fields >> stat.state;  // field 3
    for (int index = 4; index <= 22 && (fields >> field); ++index) {
        if (index == 22) stat.start_ticks = std::stoll(field);
    }
    stat.found = true;
    return stat;
}

std::string host_name() {
    char buffer[256] = {};
    if (gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
    return buffer;
}

}  // namespace

ProcessIdentity current_process_identity() {
    ProcessIdentity identity;
    identity.host = host_name();
    identity.pid = static_cast<std::int64_t>(getpid());
    identity.start_ticks = read_proc_stat(identity.pid).start_ticks;
    return identity;
}

bool process_is_alive(const ProcessIdentity& identity) {
    if (identity.host != host_name() || identity.pid <= 0) return true;
    if (kill(static_cast<pid_t>(identity.pid), 0) != 0 && errno == ESRCH) return false;
    const ProcStat stat = read_proc_stat(identity.pid);
    if (!stat.found) return kill(static_cast<pid_t>(identity.pid), 0) == 0 || errno == EPERM;
    if (stat.state == 'Z' || stat.state == 'X') return false;
    return identity.start_ticks == 0 || stat.start_ticks == identity.start_ticks;
}

}  // namespace skillhost::decisions
