#include "plugin/host_request_pool.hpp"

#include "base/worker_pool.hpp"

#include <memory>
#include <system_error>
#include <utility>

namespace skillhost::plugin {
namespace {

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
        // Each answer catches its own failures and replies.
        return host_request_pool().submit(std::make_shared<FunctionJob>(std::move(answer)));
    } catch (const std::system_error&) {
        return false;
    }
}

}  // namespace skillhost::plugin
