// Process-wide counts of what the runner supervisor saw, in total and per plugin, for the metrics
// endpoint. The per-plugin set is bounded: plugins past max_labelled_plugins count as "other", so
// a host with many plugins cannot grow the metrics without limit.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::plugin {

enum class SupervisionEvent { crash, kill, restart, quarantine };

struct PluginSupervisionStats {
    std::string plugin;
    std::uint64_t crashes = 0, kills = 0, restarts = 0, quarantines = 0;
    std::size_t runners = 0;           // alive now
    std::uint64_t resident_bytes = 0;  // their resident memory, read when asked
};

class SupervisionCounters {
public:
    static constexpr std::size_t max_labelled_plugins = 200;

    void count(std::string_view plugin, SupervisionEvent event);
    void runner_started(std::string_view plugin, pid_t pid);
    void runner_ended(std::string_view plugin, pid_t pid);
    // One entry per plugin seen, with its runners' resident memory read from /proc now.
    std::vector<PluginSupervisionStats> by_plugin() const;

    std::atomic<std::uint64_t> crashes{0};      // runners that died on their own (signal, exit, abort)
    std::atomic<std::uint64_t> kills{0};        // runners the host killed (a call ignored its deadline)
    std::atomic<std::uint64_t> restarts{0};     // runners started again after a crash or kill
    std::atomic<std::uint64_t> quarantines{0};  // plugins quarantined
    std::atomic<std::int64_t> runners{0};       // runner processes alive now

private:
    struct Entry {
        std::uint64_t crashes = 0, kills = 0, restarts = 0, quarantines = 0;
        std::vector<pid_t> pids;
    };
    Entry& entry(std::string_view plugin);  // mutex_ held

    mutable std::mutex mutex_;
    std::map<std::string, Entry, std::less<>> plugins_;
};

SupervisionCounters& supervision_counters();

}  // namespace skillhost::plugin
