// Per-key trailing debounce: a key becomes due once no new event arrived for `quiet`, or at the
// latest `max_wait` after its first event (so a file rewritten non-stop still gets reloaded).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

namespace skillhost::reload {

class DebounceSchedule {
public:
    using Clock = std::chrono::steady_clock;

    DebounceSchedule(std::chrono::milliseconds quiet, std::chrono::milliseconds max_wait)
        : quiet_(quiet), max_wait_(max_wait < quiet ? quiet : max_wait) {}

    // An event for `key` happened at `now`.
    void note(const std::filesystem::path& key, Clock::time_point now);
    // `key` should run as soon as possible (e.g. an explicit rescan request).
    void note_urgent(const std::filesystem::path& key, Clock::time_point now);

    std::optional<Clock::time_point> next_due() const;
    // Removes and returns every key due at `now`, in key order.
    std::vector<std::filesystem::path> take_due(Clock::time_point now);
    bool empty() const { return pending_.empty(); }

private:
    struct Pending {
        Clock::time_point first;
        Clock::time_point last;
        bool urgent = false;
    };
    Clock::time_point due(const Pending& pending) const;

    std::chrono::milliseconds quiet_;
    std::chrono::milliseconds max_wait_;
    std::map<std::filesystem::path, Pending> pending_;
};

}  // namespace skillhost::reload
