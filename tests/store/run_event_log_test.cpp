// The per-run event log on both backends: dense per-run numbers, reads after a number, limits,
// and (the reason it exists) two writers on one run never sharing a number.
#include "store/run_event_log.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

#include <set>
#include <thread>

namespace skillhost::store {
namespace {

using testing::TempDir;

class RunEventLogOnEachBackend : public testing::OnEachBackend {
protected:
    Result<std::unique_ptr<RunEventLog>> open() const { return RunEventLog::open(location()); }
};

SKILLHOST_ON_EACH_BACKEND(RunEventLogOnEachBackend);

TEST_P(RunEventLogOnEachBackend, NumbersEachRunsEventsFromOneAndReadsAfterANumber) {
    auto log = open();
    ASSERT_TRUE(log.ok()) << log.error().message;
    EXPECT_EQ(*(*log)->append("run-a", "thought", R"({"text":"look"})"), 1);
    EXPECT_EQ(*(*log)->append("run-a", "action", R"({"tool":"fs_read"})"), 2);
    EXPECT_EQ(*(*log)->append("run-b", "thought", R"({"text":"other"})"), 1);
    EXPECT_EQ(*(*log)->append("run-a", "completion", R"({"answer":"hi"})"), 3);

    auto all = (*log)->read("run-a", 0);
    ASSERT_TRUE(all.ok()) << all.error().message;
    ASSERT_EQ(all->size(), 3u);
    EXPECT_EQ(all->at(0).kind, "thought");
    EXPECT_EQ(all->at(2).payload, R"({"answer":"hi"})");
    auto after = (*log)->read("run-a", 2);
    ASSERT_TRUE(after.ok());
    ASSERT_EQ(after->size(), 1u);
    EXPECT_EQ(after->front().seq, 3);
    EXPECT_TRUE((*log)->read("run-a", 3)->empty());
    EXPECT_TRUE((*log)->read("run-none", 0)->empty());
    EXPECT_EQ((*log)->read("run-a", 0, 2)->size(), 2u);
}

TEST_P(RunEventLogOnEachBackend, ATooLargeEventIsRefusedWithItsSize) {
    auto log = open();
    ASSERT_TRUE(log.ok()) << log.error().message;
    auto refused = (*log)->append("run-a", "observation", std::string(max_run_event_payload_bytes + 1, 'x'));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "EVENT_TOO_LARGE");
    EXPECT_EQ(*(*log)->append("run-a", "observation", "{}"), 1);  // nothing was stored
}

TEST_P(RunEventLogOnEachBackend, WritersOnSeveralConnectionsNeverShareANumber) {
    constexpr int writers = 4;
    constexpr int each = 25;
    std::vector<std::unique_ptr<RunEventLog>> logs;
    for (int i = 0; i < writers; ++i) {
        auto log = open();
        ASSERT_TRUE(log.ok()) << log.error().message;
        logs.push_back(std::move(log.value()));
    }
    std::vector<std::vector<std::int64_t>> numbers(writers);
    std::vector<std::string> failures(writers);
    std::vector<std::thread> threads;
    for (int i = 0; i < writers; ++i) {
        threads.emplace_back([&, i] {
            for (int n = 0; n < each; ++n) {
                auto seq = logs[i]->append("run-shared", "thought", "{}");
                if (!seq) {
                    failures[i] = seq.error().message;
                    return;
                }
                numbers[i].push_back(*seq);
            }
        });
    }
    for (auto& t : threads) t.join();
    std::set<std::int64_t> seen;
    for (int i = 0; i < writers; ++i) {
        EXPECT_EQ(failures[i], "");
        seen.insert(numbers[i].begin(), numbers[i].end());
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(writers * each));
    EXPECT_EQ(*seen.begin(), 1);
    EXPECT_EQ(*seen.rbegin(), writers * each);  // dense: no gaps
    EXPECT_EQ((*logs[0]->read("run-shared", 0)).size(), static_cast<std::size_t>(writers * each));
}

}  // namespace
}  // namespace skillhost::store
