#include "base/worker_pool.hpp"

#include "base/uninterruptible_threads.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

namespace skillhost {

namespace {

struct Worker {
    // Written by a submitter that popped this worker from the idle list, then published through
    // has_job (release/seq_cst); read by the worker after it sees has_job.
    std::shared_ptr<PoolJob> job;
    std::atomic<bool> has_job{false};
    std::atomic<bool> sleeping{false};
    std::mutex mutex;
    std::condition_variable wake;
};

}  // namespace

struct WorkerPool::State {
    WorkerPoolOptions options;
    std::mutex mutex;
    std::vector<Worker*> idle;  // most recently idle last: its stack and caches are the warmest
    std::deque<std::shared_ptr<PoolJob>> queue;
    std::size_t live = 0;
    std::atomic<bool> stopping{false};
    std::condition_variable idle_changed;
};

namespace {

using State = WorkerPool::State;

void remove_idle(State& state, Worker* worker) {
    auto it = std::find(state.idle.begin(), state.idle.end(), worker);
    if (it != state.idle.end()) state.idle.erase(it);
}

// Waits until a submitter hands this worker a job (true) or the worker should retire (false).
bool wait_for_job(State& state, Worker& worker) {
    for (;;) {
        {
            std::unique_lock lock(worker.mutex);
            // Pairs with the submitter's store of has_job followed by its load of sleeping: with
            // both sequentially consistent, either we see the job or it sees us asleep and wakes us.
            worker.sleeping.store(true, std::memory_order_seq_cst);
            worker.wake.wait_for(lock, state.options.idle_exit, [&] {
                return worker.has_job.load(std::memory_order_seq_cst) || state.stopping.load(std::memory_order_acquire);
            });
            worker.sleeping.store(false, std::memory_order_relaxed);
        }
        if (worker.has_job.load(std::memory_order_acquire)) return true;
        std::lock_guard lock(state.mutex);
        // A submitter pops idle workers under this lock, so this check cannot race with a hand-off.
        if (worker.has_job.load(std::memory_order_acquire)) return true;
        if (state.stopping.load() || state.live > state.options.keep_workers) {
            remove_idle(state, &worker);
            --state.live;
            state.idle_changed.notify_all();
            return false;
        }
    }
}

void worker_main(std::shared_ptr<State> state, std::shared_ptr<PoolJob> job) {
    Worker worker;
    for (;;) {
        if (job) job->run();
        std::shared_ptr<PoolJob> next;
        bool stop = false;
        {
            std::lock_guard lock(state->mutex);
            if (!state->queue.empty()) {
                next = std::move(state->queue.front());
                state->queue.pop_front();
            } else if (state->stopping.load()) {
                stop = true;
            } else {
                state->idle.push_back(&worker);
            }
        }
        // The finished job is let go only once this worker can take the next one: what it holds
        // (a runner's place for another host request, a handler's count) may let its owner submit
        // at once, and that job must find this worker free instead of starting another thread.
        job.reset();
        if (stop) {
            std::lock_guard lock(state->mutex);
            --state->live;
            state->idle_changed.notify_all();
            return;
        }
        if (next) {
            job = std::move(next);
            continue;
        }
        if (!wait_for_job(*state, worker)) return;
        job = std::move(worker.job);
        worker.has_job.store(false, std::memory_order_relaxed);
    }
}

}  // namespace

WorkerPool::WorkerPool(WorkerPoolOptions options) : state_(std::make_shared<State>()) {
    options.keep_workers = std::max<std::size_t>(1, options.keep_workers);
    options.max_workers = std::max(options.max_workers, options.keep_workers);
    state_->options = options;
}

WorkerPool::~WorkerPool() {
    std::unique_lock lock(state_->mutex);
    state_->stopping.store(true);
    state_->queue.clear();
    for (Worker* worker : state_->idle) {
        std::lock_guard worker_lock(worker->mutex);
        worker->wake.notify_one();
    }
    // Idle workers leave promptly; busy ones (possibly stuck in a plugin) exit after their job and
    // own a reference to the state, so there is nothing to wait for on their behalf.
    state_->idle_changed.wait(lock, [&] { return state_->idle.empty(); });
}

std::size_t WorkerPool::worker_count() const {
    std::lock_guard lock(state_->mutex);
    return state_->live;
}

bool WorkerPool::submit(std::shared_ptr<PoolJob> job) {
    State& state = *state_;
    std::lock_guard lock(state.mutex);
    if (!state.idle.empty()) {
        Worker* worker = state.idle.back();
        state.idle.pop_back();
        worker->job = std::move(job);
        worker->has_job.store(true, std::memory_order_seq_cst);
        if (worker->sleeping.load(std::memory_order_seq_cst)) {
            // Taking the worker's lock once orders this with its predicate check; notifying after
            // releasing it lets the woken worker run at once instead of blocking on the lock.
            { std::lock_guard worker_lock(worker->mutex); }
            worker->wake.notify_one();
        }
        return true;
    }
    if (state.live < state.options.max_workers) {
        // A worker may be inside a plugin that never returns, past this pool's end: the process
        // owns it (base/uninterruptible_threads.hpp) and joins it once it has returned.
        uninterruptible_threads().start(
            [state = state_, job = std::move(job)]() mutable { worker_main(std::move(state), std::move(job)); });
        ++state.live;
        return true;
    }
    if (state.queue.size() >= state.options.max_queued) return false;
    state.queue.push_back(std::move(job));
    return true;
}

}  // namespace skillhost
