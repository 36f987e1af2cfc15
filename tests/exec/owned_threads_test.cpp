// The threads a component starts for its own work are joined, never detached: join_all() returns
// only after every one has left its work (and destroyed what it captured), finished threads are
// joined by the next start(), and a thread that throws ends alone.
#include "base/owned_threads.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>

namespace skillhost {
namespace {

TEST(OwnedThreads, JoinAllWaitsForEveryThreadAndWhatItCaptured) {
    std::atomic<int> done{0};
    auto captured = std::make_shared<int>(7);
    std::weak_ptr<int> watch = captured;
    std::promise<void> release;
    std::shared_future<void> go = release.get_future().share();
    OwnedThreads threads;
    for (int i = 0; i < 4; ++i)
        threads.start([&done, go, keep = captured] {
            go.wait();
            done.fetch_add(*keep == 7 ? 1 : 0);
        });
    captured.reset();
    EXPECT_EQ(threads.running(), 4u);
    release.set_value();
    threads.join_all();
    EXPECT_EQ(done.load(), 4);
    EXPECT_EQ(threads.running(), 0u);
    EXPECT_TRUE(watch.expired()) << "a thread's captures outlived join_all()";
}

TEST(OwnedThreads, AMoveOnlyWorkRunsAndTheDestructorJoins) {
    std::atomic<bool> ran{false};
    {
        OwnedThreads threads;
        auto token = std::make_unique<int>(1);
        threads.start([&ran, token = std::move(token)] {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            ran = *token == 1;
        });
    }
    EXPECT_TRUE(ran.load()) << "the destructor returned before its thread finished";
}

TEST(OwnedThreads, AThreadThatThrowsEndsAloneAndIsJoined) {
    OwnedThreads threads;
    std::atomic<bool> other{false};
    threads.start([] { throw std::runtime_error("boom"); });
    threads.start([&other] { other = true; });
    threads.join_all();
    EXPECT_TRUE(other.load());
    EXPECT_EQ(threads.running(), 0u);
}

TEST(OwnedThreads, FinishedThreadsAreJoinedByTheNextStartAndNeverPileUp) {
    OwnedThreads threads;
    for (int i = 0; i < 200; ++i) {
        std::promise<void> started;
        auto ready = started.get_future();
        threads.start([&started] { started.set_value(); });
        ready.wait();
    }
    threads.join_all();
    EXPECT_EQ(threads.running(), 0u);
}

TEST(OwnedThreads, JoinAllForReturnsWhatIsStillRunningAndJoinsItLater) {
    OwnedThreads threads;
    std::promise<void> release;
    auto released = release.get_future().share();
    threads.start([] {});
    threads.start([released] { released.wait(); });
    EXPECT_EQ(threads.join_all_for(std::chrono::milliseconds(20)), 1u) << "the stuck thread is counted, not joined";
    EXPECT_EQ(threads.running(), 1u);
    release.set_value();
    EXPECT_EQ(threads.join_all_for(std::chrono::seconds(30)), 0u);
    EXPECT_EQ(threads.running(), 0u);
}

TEST(OwnedThreads, AnOwnedThreadMayStartAnother) {
    OwnedThreads threads;
    std::atomic<bool> inner{false};
    threads.start([&] { threads.start([&inner] { inner = true; }); });
    // join_all() waits for the first; the second may have been started by then, and is waited for
    // too once it is in the list, which it is before the first returns.
    threads.join_all();
    EXPECT_TRUE(inner.load());
}

}  // namespace
}  // namespace skillhost
