// When to look whether a session's resources or prompts changed without a reload (a memory stored,
// a playbook learned): the session asks after each call it answers, and the look itself (listing
// everything the user may see) runs on the session's runner, one at a time and at most once per
// interval, so a busy session costs one listing per interval and its client one list_changed per
// change. A request while a look is running or waiting folds into one more look after it, so the
// last change is always seen.
#pragma once

#include "mcp/call_runner.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace skillhost::mcp {

class ListChangeWatch {
public:
    // `runner` must outlive the watch, or be shut down after stop().
    ListChangeWatch(CallRunner& runner, std::chrono::milliseconds min_interval, std::function<void()> look);
    ~ListChangeWatch();
    ListChangeWatch(const ListChangeWatch&) = delete;
    ListChangeWatch& operator=(const ListChangeWatch&) = delete;

    // From any thread: a look soon (at once when the last was longer than the interval ago).
    void request();
    // No more looks; one waiting for its interval returns at once, one running finishes. Idempotent.
    void stop();

private:
    void run();

    CallRunner& runner_;
    const std::chrono::milliseconds min_interval_;
    const std::function<void()> look_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    bool stopped_ = false;
    bool scheduled_ = false;  // a job is queued on the runner or running
    bool again_ = false;      // requested since the current look began
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace skillhost::mcp
