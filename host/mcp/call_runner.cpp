#include "mcp/call_runner.hpp"

#include <spdlog/spdlog.h>

#include <exception>

namespace skillhost::mcp {

CallRunner::CallRunner(std::size_t threads) {
    if (threads == 0) threads = 1;
    threads_.reserve(threads);
    for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

CallRunner::~CallRunner() {
    shutdown();
}

bool CallRunner::submit(std::function<void()> job) {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return false;
        queue_.push_back(std::move(job));
    }
    wake_.notify_one();
    return true;
}

void CallRunner::shutdown() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_ && threads_.empty()) return;
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_)
        if (t.joinable()) t.join();
    std::lock_guard lock(mutex_);
    threads_.clear();
}

void CallRunner::run() {
    for (;;) {
        std::function<void()> job;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;
            job = std::move(queue_.front());
            queue_.pop_front();
        }
        try {
            job();
        } catch (const std::exception& e) {
            spdlog::error("mcp: a tools/call job threw: {}", e.what());
        }
    }
}

}  // namespace skillhost::mcp
