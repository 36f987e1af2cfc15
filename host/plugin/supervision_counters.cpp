#include "plugin/supervision_counters.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>

namespace skillhost::plugin {
namespace {

// Resident bytes of one process (0 when it is gone).
std::uint64_t resident_bytes(pid_t pid) {
    std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
    std::uint64_t size = 0, resident = 0;
    if (!(statm >> size >> resident)) return 0;
    return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

SupervisionCounters& supervision_counters() {
    // Never destroyed: a runner's reader thread may still count its runner's end while the process
    // runs its static destructors at exit (a detached thread outlives main).
    static SupervisionCounters* const counters = new SupervisionCounters;
    return *counters;
}

SupervisionCounters::Entry& SupervisionCounters::entry(std::string_view plugin) {
    if (auto found = plugins_.find(plugin); found != plugins_.end()) return found->second;
    if (plugins_.size() >= max_labelled_plugins) return plugins_["other"];
    return plugins_[std::string(plugin)];
}

void SupervisionCounters::count(std::string_view plugin, SupervisionEvent event) {
    switch (event) {
        case SupervisionEvent::crash: crashes.fetch_add(1); break;
        case SupervisionEvent::kill: kills.fetch_add(1); break;
        case SupervisionEvent::restart: restarts.fetch_add(1); break;
        case SupervisionEvent::quarantine: quarantines.fetch_add(1); break;
    }
    std::lock_guard lock(mutex_);
    Entry& e = entry(plugin);
    switch (event) {
        case SupervisionEvent::crash: ++e.crashes; break;
        case SupervisionEvent::kill: ++e.kills; break;
        case SupervisionEvent::restart: ++e.restarts; break;
        case SupervisionEvent::quarantine: ++e.quarantines; break;
    }
}

void SupervisionCounters::runner_started(std::string_view plugin, pid_t pid) {
    runners.fetch_add(1);
    std::lock_guard lock(mutex_);
    entry(plugin).pids.push_back(pid);
}

void SupervisionCounters::runner_ended(std::string_view plugin, pid_t pid) {
    runners.fetch_sub(1);
    std::lock_guard lock(mutex_);
    auto& pids = entry(plugin).pids;
    pids.erase(std::remove(pids.begin(), pids.end(), pid), pids.end());
}

std::vector<PluginSupervisionStats> SupervisionCounters::by_plugin() const {
    std::vector<PluginSupervisionStats> out;
    std::vector<std::vector<pid_t>> pids;
    {
        std::lock_guard lock(mutex_);
        for (const auto& [name, e] : plugins_) {
            out.push_back({name, e.crashes, e.kills, e.restarts, e.quarantines, e.pids.size(), 0});
            pids.push_back(e.pids);
        }
    }
    // /proc is read outside the lock: a scrape must not hold up runner starts.
    for (std::size_t i = 0; i < out.size(); ++i)
        for (pid_t pid : pids[i]) out[i].resident_bytes += resident_bytes(pid);
    return out;
}

}  // namespace skillhost::plugin
