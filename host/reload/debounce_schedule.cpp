#include "reload/debounce_schedule.hpp"

#include <algorithm>

namespace skillhost::reload {

void DebounceSchedule::note(const std::filesystem::path& key, Clock::time_point now) {
    auto [it, inserted] = pending_.try_emplace(key, Pending{now, now, false});
    if (!inserted) it->second.last = std::max(it->second.last, now);
}

void DebounceSchedule::note_urgent(const std::filesystem::path& key, Clock::time_point now) {
    auto [it, inserted] = pending_.try_emplace(key, Pending{now, now, true});
    if (!inserted) it->second.urgent = true;
}

DebounceSchedule::Clock::time_point DebounceSchedule::due(const Pending& pending) const {
    if (pending.urgent) return pending.first;
    return std::min(pending.last + quiet_, pending.first + max_wait_);
}

std::optional<DebounceSchedule::Clock::time_point> DebounceSchedule::next_due() const {
    std::optional<Clock::time_point> next;
    for (const auto& [key, pending] : pending_) {
        const auto at = due(pending);
        if (!next || at < *next) next = at;
    }
    return next;
}

std::vector<std::filesystem::path> DebounceSchedule::take_due(Clock::time_point now) {
    std::vector<std::filesystem::path> keys;
    for (auto it = pending_.begin(); it != pending_.end();) {
        if (due(it->second) <= now) {
            keys.push_back(it->first);
            it = pending_.erase(it);
        } else {
            ++it;
        }
    }
    return keys;
}

}  // namespace skillhost::reload
