// Which process holds an approval claim, so a restarted host can tell a claim whose executor died
// (safe to mark interrupted) from one that another live process is still executing.
#pragma once

#include <cstdint>
#include <string>

namespace skillhost::decisions {

struct ProcessIdentity {
    std::string host;
    std::int64_t pid = 0;
    // Kernel start time of the process (/proc/<pid>/stat field 22) so a recycled pid is not
    // mistaken for the original process; 0 when unknown.
    std::int64_t start_ticks = 0;
};

ProcessIdentity current_process_identity();

// False only when we can tell the process is gone: same host and the pid no longer exists, is a
// zombie, or now belongs to a process that started at another time. A claim from another host is
// assumed alive (we cannot check it).
bool process_is_alive(const ProcessIdentity& identity);

}  // namespace skillhost::decisions
