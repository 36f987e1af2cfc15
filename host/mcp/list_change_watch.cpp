#include "mcp/list_change_watch.hpp"

namespace skillhost::mcp {

ListChangeWatch::ListChangeWatch(CallRunner& runner, std::chrono::milliseconds min_interval, std::function<void()> look)
    : runner_(runner), min_interval_(min_interval), look_(std::move(look)) {}

ListChangeWatch::~ListChangeWatch() {
    stop();
    std::unique_lock lock(mutex_);
    // A job still queued on a runner that was not shut down yet runs later and must find us: wait.
    idle_.wait(lock, [this] { return !scheduled_; });
}

void ListChangeWatch::request() {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    if (scheduled_) {
        again_ = true;
        return;
    }
    scheduled_ = true;
    if (!runner_.submit([this] { run(); })) scheduled_ = false;
}

void ListChangeWatch::stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    wake_.notify_all();
}

void ListChangeWatch::run() {
    std::unique_lock lock(mutex_);
    while (!stopped_) {
        wake_.wait_until(lock, last_ + min_interval_, [this] { return stopped_; });
        if (stopped_) break;
        again_ = false;
        lock.unlock();
        look_();
        lock.lock();
        last_ = std::chrono::steady_clock::now();
        if (!again_) break;
    }
    scheduled_ = false;
    idle_.notify_all();
}

}  // namespace skillhost::mcp
