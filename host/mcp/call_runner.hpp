// A small fixed pool that runs tools/call requests off the reader thread, so the reader keeps
// reading (notifications/cancelled must get through while a call runs). Bounded: at most `threads`
// calls run at once; more wait in the queue.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace skillhost::mcp {

class CallRunner {
public:
    explicit CallRunner(std::size_t threads);
    ~CallRunner();
    CallRunner(const CallRunner&) = delete;
    CallRunner& operator=(const CallRunner&) = delete;

    // False once shutdown() began (the job is not run).
    bool submit(std::function<void()> job);
    // Runs what is queued, then joins the threads. Idempotent.
    void shutdown();

private:
    void run();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> queue_;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace skillhost::mcp
