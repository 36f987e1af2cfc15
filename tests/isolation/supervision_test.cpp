// Supervision of runner processes: restarts, quarantine after repeated crashes, idle exit, events.
#include "isolation_test_support.hpp"
#include "plugin/process_plugin.hpp"
#include "plugin/supervision_counters.hpp"

#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

namespace skillhost::plugin::testing {
namespace {

class SupervisionTest : public IsolationTest {};

TEST_F(SupervisionTest, RepeatedCrashesQuarantineThePluginUntilANewLoad) {
    options.isolation.crash_limit = 3;
    std::mutex mutex;
    std::condition_variable told;
    std::vector<std::string> quarantined;
    std::vector<Error> events;
    options.isolation.on_quarantine = [&](const std::string& name) {
        std::lock_guard lock(mutex);
        quarantined.push_back(name);
        told.notify_all();
    };
    options.isolation.on_supervision_event = [&](const Error& event) {
        std::lock_guard lock(mutex);
        events.push_back(event);
    };
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(plugin->invoke(context("segfault"), "{}").error_code, "PLUGIN_CRASHED");

    std::optional<Error> reason = plugin->quarantine();
    ASSERT_TRUE(reason);
    EXPECT_EQ(reason->code, "PLUGIN_QUARANTINED");
    EXPECT_NE(reason->message.find("3 times"), std::string::npos) << reason->message;
    RawOutcome refused = plugin->invoke(context("ok"), "{}");
    EXPECT_EQ(refused.error_code, "PLUGIN_QUARANTINED");
    {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(told.wait_for(lock, std::chrono::seconds(30), [&] { return !quarantined.empty(); }));
        EXPECT_EQ(quarantined.front(), "hostile");
        int crashes = 0, quarantines = 0;
        for (const auto& event : events) {
            crashes += event.code == "PLUGIN_CRASHED";
            quarantines += event.code == "PLUGIN_QUARANTINED";
        }
        EXPECT_EQ(crashes, 3);
        EXPECT_EQ(quarantines, 1);
        EXPECT_EQ(events.front().details.at("skills").as_array().at(0).as_string(), "segfault");
    }
    // A new load (what hot reload does for a new version) starts clean.
    auto reloaded = load("hostile");
    ASSERT_TRUE(reloaded);
    EXPECT_FALSE(reloaded->quarantine());
    EXPECT_EQ(reloaded->invoke(context("ok"), "{}").result_json, R"({"ok":true})");
}

TEST_F(SupervisionTest, CrashesOutsideTheWindowDoNotAddUp) {
    options.isolation.crash_limit = 2;
    options.isolation.crash_window = std::chrono::milliseconds(1);
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(plugin->invoke(context("segfault"), "{}").error_code, "PLUGIN_CRASHED");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // leave the 1 ms window
    }
    EXPECT_FALSE(plugin->quarantine());
}

TEST_F(SupervisionTest, ARestartThatWouldMissTheDeadlineSaysSo) {
    options.isolation.restart_backoff = std::chrono::milliseconds(4000);
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    EXPECT_EQ(plugin->invoke(context("segfault"), "{}").error_code, "PLUGIN_CRASHED");
    CallControl control;
    RawOutcome outcome = plugin->invoke(timed("ok", 50, &control), "{}");
    EXPECT_EQ(outcome.error_code, "PLUGIN_RESTARTING");
}

TEST_F(SupervisionTest, IdleRunnersExitAndTheNextCallStartsAnother) {
    options.isolation.idle_timeout = std::chrono::milliseconds(50);
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    auto* process = dynamic_cast<ProcessPlugin*>(plugin.get());
    EXPECT_EQ(plugin->invoke(context("ok"), "{}").result_json, R"({"ok":true})");
    for (int i = 0; i < 2000 && process->runner_count() > 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(process->runner_count(), 0u);
    EXPECT_EQ(plugin->invoke(context("ok"), "{}").result_json, R"({"ok":true})");
    // An idle exit is not a crash.
    EXPECT_FALSE(plugin->quarantine());
}

TEST_F(SupervisionTest, ARunnerThatRetiresBeforeTheCallReachesItIsReplacedAsOftenAsItTakes) {
    // A fresh runner starts its idle clock when it has loaded the plugin. With a 1 ms idle timeout,
    // a caller that is slower than that between the start and its call (a loaded machine) finds the
    // runner retiring, often several times in a row. Retiring is not dying: every call must answer.
    options.isolation.idle_timeout = std::chrono::milliseconds(1);
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    for (int i = 0; i < 100; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(3));  // the last runner retires meanwhile
        RawOutcome outcome = plugin->invoke(context("ok"), "{}");
        ASSERT_EQ(outcome.result_json, R"({"ok":true})")
            << "call " << i << ": " << outcome.error_code << " " << outcome.error_message;
    }
    EXPECT_FALSE(plugin->quarantine());
}

// Waits until every thread of process `pid` has ended (its leader a zombie, or reaped by the host),
// so its descriptors are closed; false after 10 s. (A zombie leader alone is not enough: the other
// threads may still be exiting, holding the socket open.)
bool wait_until_dead(pid_t pid) {
    const std::filesystem::path proc = "/proc/" + std::to_string(pid);
    for (int i = 0; i < 5000; ++i) {
        const std::string stat = test::read_file(proc / "stat");
        const auto close = stat.rfind(')');
        if (stat.empty()) return true;
        std::error_code ec;
        std::size_t threads = 0;
        for (auto it = std::filesystem::directory_iterator(proc / "task", ec); !ec && it != decltype(it)(); ++it)
            ++threads;
        if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z' && threads <= 1)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
}

TEST_F(SupervisionTest, ARunnerKilledBetweenCallsIsReplacedAndTheNextCallSucceeds) {
    // A backoff this long would make the calls below answer PLUGIN_RESTARTING: an idle death has none.
    options.isolation.restart_backoff = std::chrono::milliseconds(4000);
    std::mutex mutex;
    std::vector<Error> events;
    options.isolation.on_supervision_event = [&](const Error& event) {
        std::lock_guard lock(mutex);
        events.push_back(event);
    };
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    auto* process = dynamic_cast<ProcessPlugin*>(plugin.get());
    ASSERT_NE(process, nullptr);
    CallControl control;

    // Killed right after a call: the next call finds the runner gone, whether the host has
    // noticed yet or its send is the first to fail, and runs in a fresh runner.
    ASSERT_EQ(plugin->invoke(context("ok"), "{}").result_json, R"({"ok":true})");
    ASSERT_EQ(process->runner_pids().size(), 1u);
    const pid_t first = process->runner_pids().front();
    ASSERT_EQ(::kill(first, SIGKILL), 0);
    ASSERT_TRUE(wait_until_dead(first));
    RawOutcome second = plugin->invoke(timed("ok", 2000, &control), "{}");
    EXPECT_EQ(second.result_json, R"({"ok":true})") << second.error_code << ": " << second.error_message;
    ASSERT_EQ(process->runner_pids().size(), 1u);
    EXPECT_NE(process->runner_pids().front(), first);

    // Killed and noticed by the host before the next call: the same.
    const pid_t again = process->runner_pids().front();
    ASSERT_EQ(::kill(again, SIGKILL), 0);
    for (int i = 0; i < 5000 && process->runner_count() > 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_EQ(process->runner_count(), 0u);
    EXPECT_EQ(plugin->invoke(timed("ok", 2000, &control), "{}").result_json, R"({"ok":true})");

    // Both deaths count toward quarantine, naming no skill (none was running).
    EXPECT_EQ(plugin->supervision().at("crashes"), 2);
    {
        std::lock_guard lock(mutex);
        ASSERT_EQ(events.size(), 2u);
        for (const auto& event : events) {
            EXPECT_EQ(event.code, "PLUGIN_CRASHED");
            EXPECT_TRUE(event.details.at("skills").as_array().empty());
            EXPECT_EQ(event.details.at("signal"), SIGKILL);
        }
    }

    // A runner killed while a call runs in it still ends that call with PLUGIN_CRASHED, once:
    // the call may have done something, so it is not run again.
    RawOutcome killed = plugin->invoke(context("sigkill"), "{}");
    EXPECT_EQ(killed.error_code, "PLUGIN_CRASHED");
    EXPECT_EQ(details_of(killed).at("signal_name"), "SIGKILL");
    EXPECT_EQ(plugin->supervision().at("crashes"), 3);
}

TEST(SupervisionCountersTest, PerPluginCountsAreBoundedAndReadRunnersMemory) {
    SupervisionCounters counters;
    counters.count("echo", SupervisionEvent::crash);
    counters.count("echo", SupervisionEvent::restart);
    counters.runner_started("echo", ::getpid());  // a live process whose memory can be read
    for (std::size_t i = 0; i < SupervisionCounters::max_labelled_plugins + 10; ++i)
        counters.count("plugin" + std::to_string(i), SupervisionEvent::kill);
    const auto stats = counters.by_plugin();
    EXPECT_LE(stats.size(), SupervisionCounters::max_labelled_plugins + 1);
    std::uint64_t other_kills = 0;
    for (const auto& p : stats) {
        if (p.plugin == "echo") {
            EXPECT_EQ(p.crashes, 1u);
            EXPECT_EQ(p.restarts, 1u);
            EXPECT_EQ(p.runners, 1u);
            EXPECT_GT(p.resident_bytes, 0u);
        }
        if (p.plugin == "other") other_kills = p.kills;
    }
    EXPECT_GE(other_kills, 10u);
    EXPECT_EQ(counters.kills.load(), SupervisionCounters::max_labelled_plugins + 10);
    counters.runner_ended("echo", ::getpid());
    EXPECT_EQ(counters.runners.load(), 0);
}

}  // namespace
}  // namespace skillhost::plugin::testing
