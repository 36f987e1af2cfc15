#include "plugin/host_request_pool.hpp"

#include "base/worker_pool.hpp"

#include <memory>
#include <system_error>
#include <utility>

namespace skillhost::plugin {
namespace {

class HostRequestJob final : public PoolJob {
public:
    explicit HostRequestJob(std::function<void()> answer) : answer_(std::move(answer)) {}
    void run() noexcept override {
        try {
            answer_();
        } catch (...) {
            // Each answer catches its own failures and replies; nothing may escape a worker.
        }
        answer_ = nullptr;  // what it holds (the runner's request slot) is released now, not later
    }

private:
    std::function<void()> answer_;
};

WorkerPool& host_request_pool() {
    // Never destroyed: a runner's request may still be answered while the process runs its static
    // destructors.
    static WorkerPool* const pool = [] {
        WorkerPoolOptions options;
        options.keep_workers = 2;
        options.max_workers = host_request_workers;
        options.max_queued = host_request_queue;
        return new WorkerPool(options);
    }();
    return *pool;
}

}  // namespace

bool answer_host_request_later(std::function<void()> answer) {
    try {
        return host_request_pool().submit(std::make_shared<HostRequestJob>(std::move(answer)));
    } catch (const std::system_error&) {
        return false;
    }
}

}  // namespace skillhost::plugin
