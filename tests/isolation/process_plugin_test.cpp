// ProcessPlugin with real runner processes: the plugin's misbehaviour ends only its own calls, with
// structured errors, and the plugin keeps answering afterwards.
#include "isolation_test_support.hpp"
#include "plugin/process_plugin.hpp"

#include <atomic>
#include <future>
#include <string_view>
#include <thread>
#include <vector>

namespace skillhost::plugin::testing {
namespace {

using Written = RawOutcome::Written;

class ProcessPluginTest : public IsolationTest {};

void expect_healthy(const LoadedPlugin& plugin, const Call& context) {
    RawOutcome outcome = plugin.invoke(context, "{}");
    EXPECT_EQ(outcome.status, SKILLHOST_STATUS_OK) << outcome.error_code << ": " << outcome.error_message;
    EXPECT_EQ(outcome.result_json, R"({"ok":true})");
}

TEST_F(ProcessPluginTest, AnswersFromARunnerProcess) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    EXPECT_TRUE(plugin->isolated());
    EXPECT_EQ(plugin->version(), "1.0.0");
    EXPECT_EQ(plugin->abi_version().minor, 1u);
    expect_healthy(*plugin, context("ok"));
    auto* process = dynamic_cast<ProcessPlugin*>(plugin.get());
    ASSERT_NE(process, nullptr);
    EXPECT_EQ(process->runner_count(), 1u);
}

TEST_F(ProcessPluginTest, ModeComesFromTheHostOptionsNeverTheManifest) {
    options.isolation.default_mode = IsolationMode::process;
    options.isolation.plugin_modes["hostile"] = IsolationMode::in_process;
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    EXPECT_FALSE(plugin->isolated());
    options.isolation.plugin_modes.clear();
    options.isolation.builtin_dirs = {test::fixture_dir("hostile")};
    auto builtin = load("hostile");
    ASSERT_TRUE(builtin);
    EXPECT_FALSE(builtin->isolated());
}

struct Crash {
    const char* skill;
    const char* signal_name;  // or nullptr for an exit
    int exit_status;
};

TEST_F(ProcessPluginTest, EveryCrashEndsTheCallWithPluginCrashedAndTheNextCallWorks) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    const Crash crashes[] = {{"segfault", "SIGSEGV", 0},
                             {"abort", "SIGABRT", 0},
                             {"exit", nullptr, 3},
                             {"stack_overflow", "SIGSEGV", 0},
                             {"sigkill", "SIGKILL", 0}};
    for (const Crash& crash : crashes) {
        SCOPED_TRACE(crash.skill);
        RawOutcome outcome = plugin->invoke(context(crash.skill), "{}");
        ASSERT_EQ(outcome.written, Written::error);
        EXPECT_EQ(outcome.error_code, "PLUGIN_CRASHED");
        EXPECT_NE(outcome.error_message.find(crash.skill), std::string::npos) << outcome.error_message;
        const auto details = details_of(outcome);
        EXPECT_EQ(details.at("skill").as_string(), crash.skill);
        EXPECT_EQ(details.at("plugin").as_string(), "hostile");
        if (crash.signal_name) {
#if defined(__SANITIZE_ADDRESS__)
            // ASan reports a fault itself, then exits with its own status (no signal name) or, for a
            // stack overflow, aborts.
            if (details.contains("signal_name") && std::string_view(crash.signal_name) != "SIGKILL") {
                const std::string name(details.at("signal_name").as_string());
                EXPECT_TRUE(name == crash.signal_name || name == "SIGABRT") << name;
            }
#else
            ASSERT_TRUE(details.contains("signal_name")) << outcome.error_message;
            EXPECT_EQ(details.at("signal_name").as_string(), crash.signal_name);
#endif
        } else {
            EXPECT_EQ(details.at("exit_status").as_int64(), crash.exit_status);
        }
        expect_healthy(*plugin, context("ok"));
    }
}

TEST_F(ProcessPluginTest, BadAnswersArePassedOnForTheExecutorToReport) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    RawOutcome invalid = plugin->invoke(context("invalid_json"), "{}");
    EXPECT_EQ(invalid.written, Written::result);
    EXPECT_EQ(invalid.result_json, "{not json");
    RawOutcome nothing = plugin->invoke(context("no_result"), "{}");
    EXPECT_EQ(nothing.status, SKILLHOST_STATUS_OK);
    EXPECT_EQ(nothing.written, Written::nothing);
}

TEST_F(ProcessPluginTest, AHugeResultIsRefusedInsideTheRunner) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    RawOutcome outcome = plugin->invoke(context("huge_result"), "{}");
    ASSERT_EQ(outcome.written, Written::error);
    EXPECT_EQ(outcome.error_code, "RESULT_TOO_LARGE");
    EXPECT_EQ(details_of(outcome).at("size").as_int64(), std::int64_t{256} << 20);
    expect_healthy(*plugin, context("ok"));
}

TEST_F(ProcessPluginTest, AHugeResultIsRefusedInProcessToo) {
    options.isolation.default_mode = IsolationMode::in_process;
    options.isolation.max_result_bytes = 1 << 20;
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    ASSERT_FALSE(plugin->isolated());
    RawOutcome outcome = plugin->invoke(context("huge_result"), "{}");
    EXPECT_EQ(outcome.error_code, "RESULT_TOO_LARGE");
    EXPECT_EQ(details_of(outcome).at("limit").as_int64(), 1 << 20);
}

TEST_F(ProcessPluginTest, SkillsIgnoringTheirDeadlineHaveTheRunnerKilled) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    for (const char* skill : {"hang", "busy_loop", "leak"}) {
        SCOPED_TRACE(skill);
        CallControl control;
        RawOutcome outcome = plugin->invoke(timed(skill, 100, &control), "{}");
        ASSERT_EQ(outcome.written, Written::error);
        EXPECT_EQ(outcome.error_code, "PLUGIN_KILLED");
        EXPECT_EQ(details_of(outcome).at("signal_name").as_string(), "SIGKILL");
        expect_healthy(*plugin, context("ok"));
    }
}

TEST_F(ProcessPluginTest, CancellationReachesACooperativeSkill) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    CallControl control;
    control.cancelled.store(true);
    RawOutcome outcome = plugin->invoke(context("slow_ok", "alice", &control), "{}");
    EXPECT_EQ(outcome.status, SKILLHOST_STATUS_CANCELLED);
}

TEST_F(ProcessPluginTest, ABadPluginMayCorruptOnlyItsOwnRunner) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    RawOutcome outcome = plugin->invoke(context("write_host_context"), "{}");
    // Either the runner survived the overwrite or it crashed; both end as a structured answer.
    EXPECT_TRUE(outcome.written == Written::result || outcome.error_code == "PLUGIN_CRASHED") << outcome.error_code;
    expect_healthy(*plugin, context("ok"));
}

TEST_F(ProcessPluginTest, HealthyCallsAnswerWhileAnotherCallHangsInTheSameRunner) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    CallControl hang_control;
    auto hanging =
        std::async(std::launch::async, [&] { return plugin->invoke(timed("hang", 60000, &hang_control), "{}"); });
    std::vector<std::future<RawOutcome>> healthy;
    for (int i = 0; i < 8; ++i)
        healthy.push_back(std::async(std::launch::async, [&] { return plugin->invoke(context("ok"), "{}"); }));
    for (auto& call : healthy) EXPECT_EQ(call.get().result_json, R"({"ok":true})");
    // The hang is still running: only cancellation (then the kill after the grace) ends it.
    EXPECT_EQ(hanging.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
    hang_control.cancelled.store(true);
    EXPECT_EQ(hanging.get().error_code, "PLUGIN_KILLED");
}

TEST_F(ProcessPluginTest, EachUserGetsARunnerOfTheirOwn) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    expect_healthy(*plugin, context("ok", "alice"));
    expect_healthy(*plugin, context("ok", "bob"));
    auto* process = dynamic_cast<ProcessPlugin*>(plugin.get());
    EXPECT_EQ(process->runner_count(), 2u);
    // bob's runner crashing leaves alice's alone.
    EXPECT_EQ(plugin->invoke(context("segfault", "bob"), "{}").error_code, "PLUGIN_CRASHED");
    EXPECT_EQ(process->runner_count(), 1u);
    expect_healthy(*plugin, context("ok", "alice"));
}

TEST_F(ProcessPluginTest, LoadErrorsComeBackFromTheRunnerWithTheirUsualCodes) {
    auto mismatch = PluginLoader(options).load_file(test::fixture_manifest("skills_mismatch"));
    ASSERT_FALSE(mismatch.ok());
    EXPECT_EQ(mismatch.error().code, "SKILLS_MISMATCH");
    EXPECT_TRUE(mismatch.error().details.contains("missing"));
    auto init = PluginLoader(options).load_file(test::fixture_manifest("init_fails"));
    ASSERT_FALSE(init.ok());
    EXPECT_EQ(init.error().code, "PLUGIN_INIT_FAILED");
    auto missing = PluginLoader(options).load_file(test::fixture_manifest("missing_library"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, "LIBRARY_NOT_FOUND");
}

TEST_F(ProcessPluginTest, AMissingRunnerIsAClearLoadError) {
    options.isolation.runner = cache.path() / "no-such-runner";
    auto loaded = PluginLoader(options).load_file(test::fixture_manifest("hostile"));
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().code, "RUNNER_NOT_FOUND");
}

}  // namespace
}  // namespace skillhost::plugin::testing
