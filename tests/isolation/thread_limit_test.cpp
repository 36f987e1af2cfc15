// isolation.max_tasks: a runner past the limit is killed, naming it, whether a cgroup's pids.max
// refused its threads (the host reads pids.events) or the host counted them; the plugin answers
// again from a new runner.
#include "isolation_test_support.hpp"

#include <atomic>
#include <thread>
#include <vector>

namespace skillhost::plugin::testing {
namespace {

class ThreadLimitTest : public IsolationTest {};

TEST_F(ThreadLimitTest, ARunnerStartingThreadsPastTheLimitIsKilledNamingTheLimit) {
    options.isolation.limits.max_tasks = 48;
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    const auto limits = plugin->sandbox().at("limits").as_object();
    EXPECT_EQ(limits.at("tasks").to_number<std::uint64_t>(), 48u);

    // The skill ignores cancellation: without the limit only the kill after this (long) deadline
    // would end it, and that kill names no limit.
    CallControl control;
    RawOutcome outcome = plugin->invoke(timed("thread_bomb", 60000, &control), "{}");
    ASSERT_EQ(outcome.error_code, "PLUGIN_KILLED") << outcome.error_message;
    const auto details = details_of(outcome);
    EXPECT_EQ(details.at("limit").as_string(), "max_tasks");
    EXPECT_EQ(details.at("skill").as_string(), "thread_bomb");
    EXPECT_NE(outcome.error_message.find("over its limit of 48 (isolation.max_tasks"), std::string::npos)
        << outcome.error_message;

    RawOutcome after = plugin->invoke(context("ok"), "{}");
    EXPECT_EQ(after.result_json, R"({"ok":true})") << after.error_code << ": " << after.error_message;
}

TEST_F(ThreadLimitTest, ARunnerWithinTheLimitKeepsRunning) {
    options.isolation.limits.max_tasks = 48;
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    // Concurrent calls add runner threads (one per call running at once), well under 48.
    std::vector<std::jthread> callers;
    std::atomic<int> answered{0};
    for (int i = 0; i < 8; ++i)
        callers.emplace_back([&] {
            if (plugin->invoke(context("slow_ok"), "{}").written == RawOutcome::Written::result) ++answered;
        });
    callers.clear();
    EXPECT_EQ(answered.load(), 8);
}

}  // namespace
}  // namespace skillhost::plugin::testing
