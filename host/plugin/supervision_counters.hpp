// Process-wide counts of what the runner supervisor saw, for the metrics endpoint.
#pragma once

#include <atomic>
#include <cstdint>

namespace skillhost::plugin {

struct SupervisionCounters {
    std::atomic<std::uint64_t> crashes{0};      // runners that died on their own (signal, exit, abort)
    std::atomic<std::uint64_t> kills{0};        // runners the host killed (a call ignored its deadline)
    std::atomic<std::uint64_t> restarts{0};     // runners started again after a crash or kill
    std::atomic<std::uint64_t> quarantines{0};  // plugins quarantined
    std::atomic<std::int64_t> runners{0};       // runner processes alive now
};

SupervisionCounters& supervision_counters();

}  // namespace skillhost::plugin
