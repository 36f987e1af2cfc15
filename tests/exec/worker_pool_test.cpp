// The worker pool the executor runs skill calls on (and the host answers runners' requests on): hung jobs (a plugin that never returns) take
// workers only up to max_workers, later jobs queue and run as workers come free, and workers past
// keep_workers retire after idle_exit. Jobs block on latches the test opens, so every step is
// ordered by events, never by sleeps.
#include "base/worker_pool.hpp"

#include "base/uninterruptible_threads.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace skillhost {
namespace {

using namespace std::chrono_literals;

// Counts jobs that started, are running and finished; each job waits until released.
class Board {
public:
    void started() {
        std::lock_guard lock(mutex_);
        ++started_;
        ++running_;
        max_running_ = std::max(max_running_, running_);
        changed_.notify_all();
    }
    void wait_released() {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return released_ > 0; });
        --released_;
    }
    void finished() {
        std::lock_guard lock(mutex_);
        --running_;
        ++finished_;
        changed_.notify_all();
    }
    void release(int jobs) {
        std::lock_guard lock(mutex_);
        released_ += jobs;
        changed_.notify_all();
    }
    // Waits (bounded) until `started` jobs have started; true if they did.
    bool wait_started(int count, std::chrono::milliseconds limit = 30s) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, limit, [&] { return started_ >= count; });
    }
    bool wait_finished(int count, std::chrono::milliseconds limit = 30s) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, limit, [&] { return finished_ >= count; });
    }
    int started_count() {
        std::lock_guard lock(mutex_);
        return started_;
    }
    int max_running() {
        std::lock_guard lock(mutex_);
        return max_running_;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    int started_ = 0, running_ = 0, max_running_ = 0, finished_ = 0, released_ = 0;
};

// A job that behaves like a hung plugin until the test releases it.
class HangingJob final : public PoolJob {
public:
    explicit HangingJob(std::shared_ptr<Board> board) : board_(std::move(board)) {}
    void run() noexcept override {
        board_->started();
        board_->wait_released();
        board_->finished();
    }

private:
    std::shared_ptr<Board> board_;
};

TEST(WorkerPool, HungJobsTakeWorkersOnlyUpToTheCapAndTheRestQueue) {
    auto board = std::make_shared<Board>();
    {
        WorkerPool pool(WorkerPoolOptions{1, 3, 30000ms});
        for (int i = 0; i < 5; ++i) ASSERT_TRUE(pool.submit(std::make_shared<HangingJob>(board)));
        ASSERT_TRUE(board->wait_started(3));
        // Three workers hang; the two other jobs wait in the queue rather than getting threads.
        // Releasing one hung job lets exactly one queued job start, on the freed worker.
        board->release(1);
        ASSERT_TRUE(board->wait_finished(1));
        ASSERT_TRUE(board->wait_started(4));
        board->release(1);
        ASSERT_TRUE(board->wait_finished(2));
        ASSERT_TRUE(board->wait_started(5));
        EXPECT_EQ(board->max_running(), 3) << "more jobs ran at once than max_workers";
        board->release(3);
        ASSERT_TRUE(board->wait_finished(5));
    }
    EXPECT_EQ(board->started_count(), 5);
}

// The queue has a limit too: past it, a job is refused (and never runs), and once workers free up
// the queue takes jobs again.
TEST(WorkerPool, AFullQueueRefusesJobsUntilWorkersFreeUp) {
    auto board = std::make_shared<Board>();
    {
        WorkerPoolOptions options{1, 2, 30000ms};
        options.max_queued = 2;
        WorkerPool pool(options);
        for (int i = 0; i < 4; ++i) ASSERT_TRUE(pool.submit(std::make_shared<HangingJob>(board))) << i;
        ASSERT_TRUE(board->wait_started(2));
        EXPECT_FALSE(pool.submit(std::make_shared<HangingJob>(board)))
            << "two running, two queued: the fifth must wait nowhere";
        board->release(1);
        ASSERT_TRUE(board->wait_started(3));  // a queued job took the freed worker
        EXPECT_TRUE(pool.submit(std::make_shared<HangingJob>(board)));
        board->release(4);
        ASSERT_TRUE(board->wait_finished(5));
    }
    EXPECT_EQ(board->started_count(), 5) << "the refused job must not have run";
}

TEST(WorkerPool, DestroyingThePoolDoesNotWaitForAHungJob) {
    auto board = std::make_shared<Board>();
    auto pool = std::make_unique<WorkerPool>(WorkerPoolOptions{1, 2, 30000ms});
    ASSERT_TRUE(pool->submit(std::make_shared<HangingJob>(board)));
    ASSERT_TRUE(board->wait_started(1));
    pool.reset();  // returns while the job still hangs: its worker owns what it needs
    // Not detached: the process owns the worker, and cannot join it while it hangs.
    EXPECT_GE(uninterruptible_threads().join_all_for(10ms), 1u);
    board->release(1);
    EXPECT_TRUE(board->wait_finished(1));
    // Once the job returns, its worker leaves and is joined.
    EXPECT_EQ(uninterruptible_threads().join_all_for(30s), 0u);
}

TEST(WorkerPool, WorkersBeyondTheKeptOnesRetireWhenIdle) {
    auto board = std::make_shared<Board>();
    WorkerPool pool(WorkerPoolOptions{1, 8, 50ms});
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(pool.submit(std::make_shared<HangingJob>(board)));
    ASSERT_TRUE(board->wait_started(4));
    // The pool's own count, not the process's threads: a sanitizer runtime or an earlier test's
    // exiting thread changes those at any time.
    EXPECT_EQ(pool.worker_count(), 4u) << "each hung job has a worker of its own";
    board->release(4);
    ASSERT_TRUE(board->wait_finished(4));
    // Idle for 50 ms, three of the four retire; one is kept. Poll for the event, bounded.
    bool retired = false;
    for (int i = 0; i < 3000 && !retired; ++i) {
        retired = pool.worker_count() == 1;
        if (!retired) std::this_thread::sleep_for(10ms);
    }
    EXPECT_TRUE(retired) << pool.worker_count() << " workers left";
    // The kept worker still serves new jobs.
    ASSERT_TRUE(pool.submit(std::make_shared<HangingJob>(board)));
    ASSERT_TRUE(board->wait_started(5));
    board->release(1);
    EXPECT_TRUE(board->wait_finished(5));
}

// A job that holds a place until it is let go, like a runner's slot for a host request: when the
// place frees, the next job is submitted at once. That job must find the worker that ran the last
// one free, not make the pool start another thread for each job of the chain.
class ChainedJob final : public PoolJob {
public:
    struct Chain {
        WorkerPool* pool = nullptr;
        int left = 0;
        std::mutex mutex;
        std::condition_variable done;
        bool finished = false;
    };
    explicit ChainedJob(std::shared_ptr<Chain> chain) : chain_(std::move(chain)) {}
    ~ChainedJob() override {
        if (--chain_->left > 0) {
            EXPECT_TRUE(chain_->pool->submit(std::make_shared<ChainedJob>(chain_)));
            return;
        }
        std::lock_guard lock(chain_->mutex);
        chain_->finished = true;
        chain_->done.notify_all();
    }
    void run() noexcept override {}

private:
    std::shared_ptr<Chain> chain_;
};

TEST(WorkerPool, AJobSubmittedAsTheLastOneIsLetGoRunsOnTheSameWorker) {
    WorkerPool pool(WorkerPoolOptions{1, 8, 30000ms});
    auto chain = std::make_shared<ChainedJob::Chain>();
    chain->pool = &pool;
    chain->left = 50;
    ASSERT_TRUE(pool.submit(std::make_shared<ChainedJob>(chain)));
    {
        std::unique_lock lock(chain->mutex);
        ASSERT_TRUE(chain->done.wait_for(lock, 30s, [&] { return chain->finished; }));
    }
    EXPECT_EQ(pool.worker_count(), 1u) << "each job of the chain started a worker of its own";
}

}  // namespace
}  // namespace skillhost
