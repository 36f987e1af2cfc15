#include "base/owned_threads.hpp"

#include <spdlog/spdlog.h>

#include <exception>

namespace skillhost {

OwnedThreads::~OwnedThreads() {
    join_all();
}

void OwnedThreads::join_finished_locked() {
    for (auto it = threads_.begin(); it != threads_.end();) {
        if (!it->finished) {
            ++it;
            continue;
        }
        // It marked itself finished under the lock and touches nothing of ours after: joining
        // only waits for it to leave its function.
        it->thread.join();
        it = threads_.erase(it);
    }
}

void OwnedThreads::run_logged(const std::function<void()>& work) noexcept {
    try {
        work();
    } catch (const std::exception& e) {
        spdlog::error("a host thread failed: {}", e.what());
    } catch (...) {
        spdlog::error("a host thread failed with an unknown exception");
    }
}

void OwnedThreads::finish(Owned& owned) {
    std::lock_guard lock(mutex_);
    owned.finished = true;
    finished_.notify_all();
}

void OwnedThreads::join_all() {
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [this] { return running_locked() == 0; });
    join_finished_locked();
}

std::size_t OwnedThreads::join_all_for(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    finished_.wait_for(lock, limit, [this] { return running_locked() == 0; });
    join_finished_locked();
    return running_locked();
}

std::size_t OwnedThreads::running_locked() const {
    std::size_t count = 0;
    for (const Owned& owned : threads_) count += owned.finished ? 0 : 1;
    return count;
}

std::size_t OwnedThreads::running() const {
    std::lock_guard lock(mutex_);
    return running_locked();
}

}  // namespace skillhost
