// A pool of threads for work that may block for long: skill calls (a caller can stop waiting at a
// deadline while a late or hung skill keeps its thread; the plugin cannot be interrupted, only asked
// to stop) and the host services runners ask for (a completion can take seconds).
//
// A worker that finishes parks at once (no spinning: on a machine with few CPUs a spinning thread
// takes the CPU the thread it waits for needs). The pool grows when every worker is busy (a hung skill must not block unrelated calls) up to a limit, and
// workers beyond `keep_workers` retire after being idle for `idle_exit`.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

namespace skillhost {

class PoolJob {
public:
    virtual ~PoolJob() = default;
    virtual void run() noexcept = 0;
};

// A job that runs a function once. Nothing may escape a worker: an exception is swallowed, so a
// function that can fail answers its own failure. What the function holds is released right after
// it ran, on the worker, not whenever the job object goes.
class FunctionJob final : public PoolJob {
public:
    explicit FunctionJob(std::function<void()> work) : work_(std::move(work)) {}
    void run() noexcept override {
        try {
            work_();
        } catch (...) {}
        work_ = nullptr;
    }

private:
    std::function<void()> work_;
};

struct WorkerPoolOptions {
    std::size_t keep_workers = 2;  // parked workers kept when idle
    std::size_t max_workers = 64;  // beyond this, jobs wait in a queue
    std::chrono::milliseconds idle_exit{30000};
    std::size_t max_queued = 1024;  // beyond this, submit() refuses the job
};

class WorkerPool {
public:
    explicit WorkerPool(WorkerPoolOptions options = {});
    // Waits for idle workers to exit; a worker still inside a job (a hung plugin) finishes it
    // on its own and then exits, keeping the pool's shared state alive until then. Workers are
    // threads of uninterruptible_threads() (base/uninterruptible_threads.hpp), joined there.
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Runs job->run() on a worker thread, or queues it while max_workers are busy. Returns false,
    // and drops the job unrun, when max_queued jobs already wait. Throws std::system_error when a
    // needed thread cannot be created.
    [[nodiscard]] bool submit(std::shared_ptr<PoolJob> job);

    // Workers that have not retired: idle ones plus those inside a job (for metrics and tests).
    std::size_t worker_count() const;

    struct State;

private:
    std::shared_ptr<State> state_;
};

}  // namespace skillhost
