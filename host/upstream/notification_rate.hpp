// How many notifications a server may send a second: the rest are dropped and counted, so a flood
// cannot keep a transport's reader (and the calls waiting on it) busy. Not thread-safe: the
// transport holds its own lock around it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace skillhost::upstream {

class NotificationRate {
public:
    explicit NotificationRate(std::size_t per_second) : per_second_(per_second) {}

    // Whether one more notification arriving at `now` is taken; false counts it as dropped.
    bool admit(std::chrono::steady_clock::time_point now) {
        if (now - window_ >= std::chrono::seconds(1)) {
            window_ = now;
            in_window_ = 0;
        }
        if (++in_window_ <= per_second_) return true;
        ++dropped_;
        return false;
    }
    std::uint64_t dropped() const { return dropped_; }
    std::size_t per_second() const { return per_second_; }

private:
    std::size_t per_second_;
    std::chrono::steady_clock::time_point window_{};
    std::size_t in_window_ = 0;
    std::uint64_t dropped_ = 0;
};

}  // namespace skillhost::upstream
