// Threads a component starts for work of its own (a run, an event stream) and owns to the end:
// each is joined, never detached, so nothing it captured outlives its owner. A finished thread is
// joined by the next start() (so a long-lived owner keeps no dead threads) or by join_all().
//
// Thread-safety: every member may be called from any thread, except that join_all() and the
// destructor must not run on one of the owned threads (that would wait for itself).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <thread>

namespace skillhost {

class OwnedThreads {
public:
    OwnedThreads() = default;
    // join_all(): the owner waits for its threads, so whatever they use must still be alive then.
    ~OwnedThreads();
    OwnedThreads(const OwnedThreads&) = delete;
    OwnedThreads& operator=(const OwnedThreads&) = delete;

    // Runs `work()` on a new thread (an exception escaping it is logged and ends only that thread);
    // `work` may be move-only, and is destroyed on that thread before it counts as finished. Throws
    // std::system_error, as std::thread does, when no thread can be created.
    template <class Work>
    void start(Work work) {
        std::lock_guard lock(mutex_);
        join_finished_locked();
        Owned& owned = threads_.emplace_back();
        try {
            // The new thread marks `owned` under the lock, so not before `thread` is set.
            owned.thread = std::thread([this, &owned, work = std::optional<Work>(std::move(work))]() mutable {
                run_logged([&] { (*work)(); });
                work.reset();
                finish(owned);
            });
        } catch (...) {
            threads_.pop_back();
            throw;
        }
    }

    // Waits for every thread started so far to return, and joins them.
    void join_all();

    // Waits up to `limit` for every thread started so far to return, joins those that did, and
    // returns how many are still running (0: all joined).
    std::size_t join_all_for(std::chrono::milliseconds limit);

    // Threads started and not yet returned from their work.
    std::size_t running() const;

private:
    struct Owned {
        std::thread thread;
        bool finished = false;
    };
    void join_finished_locked();
    std::size_t running_locked() const;
    static void run_logged(const std::function<void()>& work) noexcept;
    void finish(Owned& owned);

    mutable std::mutex mutex_;
    std::condition_variable finished_;
    std::list<Owned> threads_;  // a list: each thread marks its own entry, which must not move
};

}  // namespace skillhost
