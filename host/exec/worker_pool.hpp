// The threads skill calls run on, so that a caller can stop waiting at a deadline while a late or
// hung skill keeps its thread (the plugin cannot be interrupted, only asked to stop).
//
// A worker that finishes parks at once (no spinning: on a machine with few CPUs a spinning thread
// takes the CPU the thread it waits for needs). The pool grows when every worker is busy (a hung skill must not block unrelated calls) up to a limit, and
// workers beyond `keep_workers` retire after being idle for `idle_exit`.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

namespace skillhost::exec {

class PoolJob {
public:
    virtual ~PoolJob() = default;
    virtual void run() noexcept = 0;
};

struct WorkerPoolOptions {
    std::size_t keep_workers = 2;  // parked workers kept when idle
    std::size_t max_workers = 64;  // beyond this, jobs wait in a queue
    std::chrono::milliseconds idle_exit{30000};
};

class WorkerPool {
public:
    explicit WorkerPool(WorkerPoolOptions options = {});
    // Waits for idle workers to exit; a worker still inside a job (a hung plugin) finishes it
    // on its own and then exits, keeping the pool's shared state alive until then.
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Runs job->run() on a worker thread. Throws std::system_error when a needed thread cannot be
    // created.
    void submit(std::shared_ptr<PoolJob> job);

    // Workers that have not retired: idle ones plus those inside a job (for metrics and tests).
    std::size_t worker_count() const;

    struct State;

private:
    std::shared_ptr<State> state_;
};

}  // namespace skillhost::exec
