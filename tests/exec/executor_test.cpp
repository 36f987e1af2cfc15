// The executor end to end: real fixture plugins (tests/fixtures) loaded by the real PluginLoader,
// called through Executor::call exactly as the CLI, the API and the operator call them.
#include "exec/executor.hpp"

#include "plugin/plugin_loader.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <set>
#include <thread>

namespace skillhost::exec {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;

const fs::path fixtures = SKILLHOST_TEST_FIXTURES_BINARY_DIR;

// Wraps a real loaded plugin and records, when each invoke() returns, whether the host had set the
// call's cancellation flag by then, and the status the plugin returned.
class RecordingPlugin final : public plugin::LoadedPlugin {
public:
    explicit RecordingPlugin(std::shared_ptr<plugin::LoadedPlugin> inner) : inner_(std::move(inner)) {}
    const manifest::Manifest& manifest() const override { return inner_->manifest(); }
    std::string_view version() const override { return inner_->version(); }
    manifest::AbiVersion abi_version() const override { return inner_->abi_version(); }
    const fs::path& loaded_from() const override { return inner_->loaded_from(); }
    plugin::RawOutcome invoke(const plugin::Call& context, std::string_view args) const override {
        {
            std::lock_guard lock(mutex_);
            ++entered_;
            max_active_ = std::max(max_active_, ++active_);
            changed_.notify_all();
        }
        auto outcome = inner_->invoke(context, args);
        std::lock_guard lock(mutex_);
        --active_;
        returned_ = true;
        cancelled_when_returned_ = context.control && context.control->cancelled.load();
        status_ = outcome.status;
        changed_.notify_all();
        return outcome;
    }
    // Waits (bounded) for the plugin to return; true if it did.
    bool wait_returned(std::chrono::milliseconds limit) const {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, limit, [&] { return returned_; });
    }
    // Waits (bounded) until `calls` invocations are inside the plugin at the same time; true if they were.
    bool wait_inside(int calls, std::chrono::milliseconds limit) const {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, limit, [&] { return active_ >= calls; });
    }
    int max_active() const {
        std::lock_guard lock(mutex_);
        return max_active_;
    }
    bool has_returned() const {
        std::lock_guard lock(mutex_);
        return returned_;
    }
    bool cancelled_when_returned() const {
        std::lock_guard lock(mutex_);
        return cancelled_when_returned_;
    }
    skillhost_status status() const {
        std::lock_guard lock(mutex_);
        return status_;
    }

private:
    std::shared_ptr<plugin::LoadedPlugin> inner_;
    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    mutable bool returned_ = false;
    mutable int entered_ = 0;
    mutable int active_ = 0;
    mutable int max_active_ = 0;
    mutable bool cancelled_when_returned_ = false;
    mutable skillhost_status status_ = SKILLHOST_STATUS_OK;
};

class ExecutorTest : public ::testing::Test {
protected:
    void SetUp() override {
        fixture_home_ = std::make_unique<testing::TempDir>("skillhost-exec");
        loader_ = std::make_unique<plugin::PluginLoader>(plugin::LoaderOptions{*fixture_home_ / "plugin-cache", {}});
        for (const char* name : {"echo", "bad_result", "hangs"}) plugins_.push_back(load(name));
        catalog_ = std::make_shared<catalog::CatalogSnapshot>(1, plugins_, std::vector<plugin::PluginFailure>{});
        caller_.user_id = "alice";
        caller_.cognitive_mode = "dual";
        users_dir_ = *fixture_home_ / "users";
        caller_.workspace_root = *fixture_home_ / "workspace";
    }

    std::shared_ptr<plugin::LoadedPlugin> load(const std::string& name) {
        auto loaded = loader_->load_file(fixtures / name / (name + ".yaml"));
        if (!loaded) ADD_FAILURE() << loaded.error().message;
        return loaded.ok() ? loaded.value() : nullptr;
    }

    // A one-plugin catalog whose plugin records how its calls ended.
    std::pair<std::shared_ptr<catalog::CatalogSnapshot>, std::shared_ptr<RecordingPlugin>> recorded(
        const std::string& name) {
        auto recorder = std::make_shared<RecordingPlugin>(load(name));
        auto snapshot = std::make_shared<catalog::CatalogSnapshot>(
            2, std::vector<std::shared_ptr<plugin::LoadedPlugin>>{recorder}, std::vector<plugin::PluginFailure>{});
        return {snapshot, recorder};
    }

    // A call for caller_, its data under users_dir_.
    SkillResult call(std::string_view skill, std::string_view args_json, CallOptions options = {}) {
        options.users_dir = users_dir_;
        return executor_.call(*catalog_, skill, json::parse(args_json), caller_, options);
    }

    std::unique_ptr<testing::TempDir> fixture_home_;
    std::unique_ptr<plugin::PluginLoader> loader_;
    std::vector<std::shared_ptr<plugin::LoadedPlugin>> plugins_;
    std::shared_ptr<catalog::CatalogSnapshot> catalog_;
    plugin::Call caller_;
    std::filesystem::path users_dir_;
    Executor executor_;
};

TEST_F(ExecutorTest, SuccessReturnsTheParsedResult) {
    const auto result = call("add", R"({"a":2,"b":3})");
    ASSERT_TRUE(result.ok) << result.error.message;
    EXPECT_EQ(result.output, json::parse(R"({"sum":5})"));
    EXPECT_EQ(result.skill_id, "add");
    EXPECT_EQ(result.plugin_name, "echo");
    EXPECT_THAT(result.call_id, StartsWith("call-"));
    const auto out = result.to_json();
    EXPECT_EQ(out.at("ok"), true);
    EXPECT_EQ(out.at("result"), json::parse(R"({"sum":5})"));
    EXPECT_FALSE(out.contains("error"));
}

TEST_F(ExecutorTest, PluginReceivesArgumentsWithDefaultsApplied) {
    const auto result = call("echo", R"({"text":"hi"})");
    ASSERT_TRUE(result.ok) << result.error.message;
    EXPECT_EQ(result.output.at("echo"), json::parse(R"({"text":"hi","repeat":1,"mode":"plain"})"));
}

TEST_F(ExecutorTest, NullArgumentsMeanNoArguments) {
    const auto result = executor_.call(*catalog_, "noop", json::value(nullptr), caller_);
    ASSERT_TRUE(result.ok) << result.error.message;
    EXPECT_EQ(result.output, json::object());
}

TEST_F(ExecutorTest, InvalidArgumentsNeverReachThePlugin) {
    const auto result = call("echo", R"({"text":"hi","mode":"quiet","colour":"red"})");
    ASSERT_FALSE(result.ok);
    EXPECT_EQ(result.error.code, "INVALID_ARGS");
    EXPECT_THAT(result.error.message, StartsWith("echo: args.mode: expected one of plain, loud, got \"quiet\""));
    EXPECT_EQ(result.error.details.at("accepted_fields"), json::parse(R"(["text","repeat","mode"])"));
    ASSERT_GE(result.error.suggestions.size(), 2u);
    EXPECT_THAT(result.error.suggestions[0], HasSubstr("echo takes: text (string, required)"));
    EXPECT_THAT(result.error.suggestions[1], HasSubstr("accepted_fields"));
    const auto out = result.to_json();
    EXPECT_EQ(out.at("ok"), false);
    EXPECT_EQ(out.at("error").at("code"), "INVALID_ARGS");
    EXPECT_EQ(out.at("error").at("suggestions").as_array().size(), result.error.suggestions.size());
}

TEST_F(ExecutorTest, UnknownSkillSuggestsCloseIds) {
    const auto result = call("ad", "{}");
    ASSERT_FALSE(result.ok);
    EXPECT_EQ(result.error.code, "SKILL_NOT_FOUND");
    EXPECT_THAT(result.error.message, HasSubstr("did you mean add?"));
    EXPECT_EQ(result.error.details.at("similar").at(0), "add");
    EXPECT_THAT(result.error.suggestions, ::testing::Contains(HasSubstr("Did you mean add?")));
}

TEST_F(ExecutorTest, StructuredPluginErrorKeepsCodeDetailsAndManifestHintsFirst) {
    const auto result = call("fail", R"({"reason":"because"})");
    ASSERT_FALSE(result.ok);
    EXPECT_EQ(result.error.code, "ECHO_FAILED");
    EXPECT_THAT(result.error.message, HasSubstr("echo failed on purpose (because)"));
    EXPECT_EQ(result.error.details.at("reason"), "because");
    EXPECT_EQ(result.error.details.at("plugin"), "echo");
    ASSERT_FALSE(result.error.suggestions.empty());
    EXPECT_EQ(result.error.suggestions[0], "This skill always fails; call echo.noop instead.");
}

TEST_F(ExecutorTest, ExceptionInSkillBecomesPluginException) {
    const auto result = call("throws", "{}");
    ASSERT_FALSE(result.ok);
    EXPECT_EQ(result.error.code, "PLUGIN_EXCEPTION");
    EXPECT_THAT(result.error.message, HasSubstr("runtime_error on purpose"));
    EXPECT_THAT(result.error.suggestions, ::testing::Contains(HasSubstr("plugin author")));
}

TEST_F(ExecutorTest, InvalidJsonResultNamesThePluginAndShowsTheText) {
    const auto result = call("invalid_json", "{}");
    ASSERT_FALSE(result.ok);
    EXPECT_EQ(result.error.code, "PLUGIN_INVALID_RESULT");
    EXPECT_THAT(result.error.message, HasSubstr("plugin bad_result"));
    EXPECT_THAT(result.error.message, HasSubstr("'{not json'"));
    EXPECT_EQ(result.error.details.at("result_prefix"), "{not json");
    EXPECT_THAT(result.error.suggestions, ::testing::Contains(HasSubstr("report this to the plugin author")));
}

TEST_F(ExecutorTest, OkWithoutResultIsPluginNoResult) {
    const auto result = call("no_result", "{}");
    ASSERT_FALSE(result.ok);
    EXPECT_EQ(result.error.code, "PLUGIN_NO_RESULT");
    EXPECT_THAT(result.error.message, HasSubstr("no_result of plugin bad_result"));
}

TEST_F(ExecutorTest, ErrorStatusWithoutErrorIsUnspecified) {
    const auto result = call("error_status_no_error", "{}");
    ASSERT_FALSE(result.ok);
    EXPECT_EQ(result.error.code, "PLUGIN_ERROR_UNSPECIFIED");
    EXPECT_EQ(result.error.details.at("status"), SKILLHOST_STATUS_ERROR);
}

TEST_F(ExecutorTest, OnlyTheFirstOfTwoWritesCounts) {
    const auto result = call("double_write", "{}");
    ASSERT_TRUE(result.ok) << result.error.message;
    EXPECT_EQ(result.output, json::parse(R"({"first":true})"));
}

TEST_F(ExecutorTest, HungSkillTimesOutAtTheDeadlineAndIsAskedToStop) {
    auto [snapshot, recorder] = recorded("hangs");
    CallOptions options;
    options.timeout = std::chrono::milliseconds(100);
    const auto started = Clock::now();
    // The plugin hangs for 5 s; the caller's answer comes at the 100 ms deadline, well before.
    const auto result = executor_.call(*snapshot, "forever", json::parse(R"({"ms":5000})"), caller_, options);
    const auto took = Clock::now() - started;
    ASSERT_FALSE(result.ok);
    EXPECT_EQ(result.error.code, "TIMEOUT");
    EXPECT_EQ(result.error.details.at("timeout_ms"), 100);
    EXPECT_THAT(result.error.message, HasSubstr("did not finish within 100 ms"));
    EXPECT_THAT(result.error.suggestions, ::testing::Contains(HasSubstr("larger timeout")));
    EXPECT_GE(took, std::chrono::milliseconds(100));
    EXPECT_LT(took, std::chrono::milliseconds(4000)) << "the caller must not wait for the hung plugin";
    // The plugin is still running; when it finally returns, its cancellation flag had been set.
    ASSERT_TRUE(recorder->wait_returned(std::chrono::seconds(10)));
    EXPECT_TRUE(recorder->cancelled_when_returned());
}

TEST_F(ExecutorTest, ManifestTimeoutAppliesWithoutAnOverride) {
    // hangs.yaml says timeout_ms: 200.
    const auto started = Clock::now();
    const auto result = call("forever", R"({"ms":5000})");
    EXPECT_EQ(result.error.code, "TIMEOUT");
    EXPECT_EQ(result.error.details.at("timeout_ms"), 200);
    EXPECT_LT(Clock::now() - started, std::chrono::milliseconds(4000))
        << "waited for the plugin, not the manifest's 200 ms";
}

TEST_F(ExecutorTest, CooperativeSkillStopsWhenCancelledFromAnotherThread) {
    auto [snapshot, recorder] = recorded("echo");
    CallOptions options;
    options.timeout = std::chrono::seconds(30);  // past the manifest's 1 s: only the cancel ends it
    options.cancel = std::make_shared<std::atomic<bool>>(false);
    // Cancels once the call is inside the plugin (not before it started: that is another test).
    std::thread canceller([flag = options.cancel, recorder = recorder] {
        recorder->wait_inside(1, std::chrono::seconds(30));
        flag->store(true);
    });
    const auto started = Clock::now();
    const auto result = executor_.call(*snapshot, "sleep", json::parse(R"({"ms":5000})"), caller_, options);
    canceller.join();
    ASSERT_FALSE(result.ok);
    EXPECT_EQ(result.error.code, "CANCELLED");
    // The skill polls is_cancelled and returns early with CANCELLED instead of sleeping 5 s.
    EXPECT_LT(Clock::now() - started, std::chrono::milliseconds(4500));
    ASSERT_TRUE(recorder->wait_returned(std::chrono::seconds(10)));
    EXPECT_TRUE(recorder->cancelled_when_returned());
    EXPECT_EQ(recorder->status(), SKILLHOST_STATUS_CANCELLED);
}

// A front end that wants to hear when a call runs longer than `after`.
class RunningLongFrontEnd final : public plugin::CallServices {
public:
    RunningLongFrontEnd(std::chrono::milliseconds after, std::function<void()> told)
        : after_(after), told_(std::move(told)) {}
    std::optional<std::chrono::milliseconds> running_long_after() const override { return after_; }
    void running_long() override { told_(); }

private:
    const std::chrono::milliseconds after_;
    const std::function<void()> told_;
};

// A call run on the caller's own thread is reported as running long from the watcher's thread
// while it still runs (the MCP stdio reader hands its reading on then): here the report cancels it.
TEST_F(ExecutorTest, ACallStillRunningOnTheCallersThreadIsReportedAsRunningLong) {
    auto prepared = prepare_call(*catalog_, "sleep", json::parse(R"({"ms":20000})"));
    ASSERT_TRUE(prepared) << prepared.error().message;
    CallOptions options;
    options.timeout = std::chrono::seconds(60);
    options.cancel = std::make_shared<std::atomic<bool>>(false);
    const auto caller_thread = std::this_thread::get_id();
    std::atomic<int> reports{0};
    std::atomic<bool> reported_elsewhere{false};
    options.services = std::make_shared<RunningLongFrontEnd>(std::chrono::milliseconds(1), [&, flag = options.cancel] {
        reported_elsewhere = std::this_thread::get_id() != caller_thread;
        ++reports;
        flag->store(true);
    });
    std::promise<SkillResult> answer;
    executor_.start(
        prepared.value(), caller_, options, [&](SkillResult result) { answer.set_value(std::move(result)); },
        RunOn::this_thread);
    // start() returns once the plugin returned, which it does when cancelled; the answer may come
    // from the watcher (CANCELLED) or from this thread (the plugin's own CANCELLED).
    EXPECT_EQ(reports.load(), 1);
    EXPECT_TRUE(reported_elsewhere.load());
    const SkillResult result = answer.get_future().get();
    EXPECT_EQ(result.error.code, "CANCELLED") << result.error.message;
}

// The HTTP handler that runs a call on its own thread answers itself unless start() returns without
// calling it back; then it trusts the watcher's answer to be out. So when the watcher wins (here:
// the deadline, while the plugin returns soon after because it honours cancellation), start() may
// return only once the watcher's callback has finished, however slow that callback is.
TEST_F(ExecutorTest, ACallerThreadThatLostToTheDeadlineReturnsOnlyAfterTheWatchersAnswerIsOut) {
    auto prepared = prepare_call(*catalog_, "sleep", json::parse(R"({"ms":5000})"));
    ASSERT_TRUE(prepared) << prepared.error().message;
    for (int round = 0; round < 3; ++round) {
        CallOptions options;
        options.timeout = std::chrono::milliseconds(20);
        const auto caller_thread = std::this_thread::get_id();
        std::atomic<bool> answered_elsewhere{false}, delivered{false};
        std::string code;
        executor_.start(
            prepared.value(), caller_, options,
            [&](SkillResult result) {
                if (std::this_thread::get_id() != caller_thread) {
                    answered_elsewhere = true;
                    // A slow answer (a busy network thread, an audit write): the plugin has long returned.
                    std::this_thread::sleep_for(std::chrono::milliseconds(150));
                }
                code = result.error.code;
                delivered = true;
            },
            RunOn::this_thread);
        EXPECT_TRUE(delivered.load()) << "round " << round << ": start() returned before the answer was delivered";
        EXPECT_EQ(code, "TIMEOUT");
        if (!answered_elsewhere.load()) GTEST_LOG_(INFO) << "round " << round << ": the caller's thread won the race";
    }
}

TEST_F(ExecutorTest, AQuickCallIsNotReportedAsRunningLong) {
    CallOptions options;
    std::atomic<int> reports{0};
    options.services = std::make_shared<RunningLongFrontEnd>(std::chrono::hours(1), [&] { ++reports; });
    EXPECT_TRUE(call("noop", "{}", options).ok);
    EXPECT_EQ(reports.load(), 0);
}

TEST_F(ExecutorTest, CooperativeSkillStoppedByItsDeadlineIsATimeoutNotACancel) {
    // sleep polls is_cancelled(), which turns true at the deadline, so the plugin may return
    // CANCELLED just before the executor's own wait times out: either way the caller sees TIMEOUT.
    for (int i = 0; i < 20; ++i) {
        CallOptions options;
        options.timeout = std::chrono::milliseconds(30);
        const auto result = call("sleep", R"({"ms":3000})", options);
        ASSERT_FALSE(result.ok);
        ASSERT_EQ(result.error.code, "TIMEOUT") << "round " << i << ": " << result.error.message;
    }
}

TEST_F(ExecutorTest, AlreadyCancelledCallDoesNotStart) {
    auto [snapshot, recorder] = recorded("echo");
    CallOptions options;
    options.cancel = std::make_shared<std::atomic<bool>>(true);
    const auto result = executor_.call(*snapshot, "noop", json::object(), caller_, options);
    EXPECT_EQ(result.error.code, "CANCELLED");
    EXPECT_FALSE(recorder->wait_returned(std::chrono::milliseconds(50)));
}

TEST_F(ExecutorTest, TimeoutOptionOverridesTheManifest) {
    // sleep's manifest timeout is 1000 ms; 1200 ms of sleep passes with a larger override.
    CallOptions options;
    options.timeout = std::chrono::milliseconds(5000);
    const auto result = call("sleep", R"({"ms":1200})", options);
    ASSERT_TRUE(result.ok) << result.error.message;
    EXPECT_EQ(result.output.at("slept_ms"), 1200);
}

TEST_F(ExecutorTest, SerialSkillNeverRunsTwiceAtOnceWhileParallelSkillsOverlap) {
    std::vector<std::thread> threads;
    std::mutex mutex;
    std::vector<SkillResult> results;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 3; ++i) {
                auto r = call("serial_probe", "{}");
                std::lock_guard lock(mutex);
                results.push_back(std::move(r));
            }
        });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(results.size(), 12u);
    for (const auto& r : results) {
        ASSERT_TRUE(r.ok) << r.error.message;
        EXPECT_EQ(r.output.at("max_active"), 1);
    }

    // Four calls of a parallel skill are inside the plugin at the same time (the pool grows past
    // its two kept workers). Each is cancelled once all four are in, so none waits out its sleep.
    threads.clear();
    auto [snapshot, recorder] = recorded("echo");
    CallOptions options;
    options.timeout = std::chrono::seconds(60);  // past the manifest's 1 s: only the cancel ends them
    options.cancel = std::make_shared<std::atomic<bool>>(false);
    std::atomic<int> cancelled{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            auto r = executor_.call(*snapshot, "sleep", json::parse(R"({"ms":20000})"), caller_, options);
            cancelled += r.error.code == "CANCELLED" ? 1 : 0;
        });
    const bool overlapped = recorder->wait_inside(4, std::chrono::seconds(30));
    options.cancel->store(true);
    for (auto& t : threads) t.join();
    EXPECT_TRUE(overlapped) << "at most " << recorder->max_active() << " calls ran at once";
    EXPECT_EQ(cancelled.load(), 4);
}

TEST_F(ExecutorTest, ProgressReportsReachTheCaller) {
    std::vector<std::string> reports;
    CallOptions options;
    options.services = plugin::progress_listener([&](double done, double total, std::string_view message) {
        reports.push_back(std::to_string(static_cast<int>(done)) + "/" + std::to_string(static_cast<int>(total)) + " " +
                          std::string(message));
    });
    const auto result = call("progress", "{}", options);
    ASSERT_TRUE(result.ok) << result.error.message;
    EXPECT_THAT(reports, ::testing::ElementsAre("1/3 first third", "2/3 second third", "3/3 done"));
}

TEST_F(ExecutorTest, PluginSeesTheCallContextAndItsDataDirExists) {
    const auto before =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    const auto result = call("whoami", "{}");
    ASSERT_TRUE(result.ok) << result.error.message;
    const auto& out = result.output;
    const fs::path expected_dir = users_dir_ / "alice" / "plugins" / "echo";
    EXPECT_EQ(out.at("user_id"), "alice");
    EXPECT_EQ(out.at("cognitive_mode"), "dual");
    EXPECT_EQ(out.at("data_dir").as_string(), expected_dir.string());
    EXPECT_EQ(out.at("data_dir_exists"), true);
    EXPECT_TRUE(fs::is_directory(expected_dir));
    EXPECT_EQ(out.at("workspace_root").as_string(), caller_.workspace_root.string());
    EXPECT_EQ(out.at("call_id").as_string(), result.call_id);
    EXPECT_EQ(out.at("skill_id"), "whoami");
    EXPECT_GE(out.at("deadline_unix_ms").to_number<std::int64_t>(), before + 29000);
}

TEST_F(ExecutorTest, UserIdThatIsAPathIsRefused) {
    caller_.user_id = "../../etc";
    const auto result = call("whoami", "{}");
    ASSERT_FALSE(result.ok);
    EXPECT_EQ(result.error.code, "INVALID_USER_ID");
    EXPECT_FALSE(fs::exists(*fixture_home_ / "etc"));
}

TEST_F(ExecutorTest, UserIdsFollowTheUsersYamlRule) {
    // The same rule as users.yaml: an id the user directory refuses is refused here too.
    for (const char* id : {"Alice", "bob@example.org", "", ".hidden"}) {
        caller_.user_id = id;
        const auto result = call("whoami", "{}");
        ASSERT_FALSE(result.ok) << id;
        EXPECT_EQ(result.error.code, "INVALID_USER_ID") << id;
    }
    caller_.user_id = "alice.b-2_x";
    EXPECT_TRUE(call("whoami", "{}").ok);
}

TEST_F(ExecutorTest, CallIdsAreUnique) {
    std::set<std::string> ids;
    for (int i = 0; i < 200; ++i) ids.insert(call("noop", "{}").call_id);
    EXPECT_EQ(ids.size(), 200u);
}

TEST_F(ExecutorTest, ExecutorOutlivesNothingItDoesNotOwn) {
    // A call answered while its plugin still runs (here: cancelled once it is inside; a timeout is
    // the same path) leaves a worker inside the plugin; destroying the executor and the catalog must
    // neither wait for it nor pull the library from under it.
    auto executor = std::make_unique<Executor>();
    auto [snapshot, recorder] = recorded("hangs");
    CallOptions options;
    options.cancel = std::make_shared<std::atomic<bool>>(false);
    // Cancelled only once the plugin is entered: with a short timeout instead, a starved pool thread
    // could start after the answer and never enter the plugin, and the test would prove nothing.
    // 10 s: long enough that even a starved test process sees the cancel, not the plugin's answer.
    SkillResult result;
    std::thread caller(
        [&] { result = executor->call(*snapshot, "forever", json::parse(R"({"ms":10000})"), caller_, options); });
    const bool inside = recorder->wait_inside(1, std::chrono::seconds(30));
    options.cancel->store(true);
    caller.join();
    ASSERT_TRUE(inside) << "the call never entered the plugin";
    EXPECT_EQ(result.error.code, "CANCELLED") << result.error.message;
    std::weak_ptr<RecordingPlugin> hung = recorder;  // from here on only the hung call holds it
    recorder.reset();
    executor.reset();
    snapshot.reset();
    catalog_.reset();
    plugins_.clear();
    {
        auto still_held = hung.lock();
        ASSERT_TRUE(still_held) << "the plugin was released while a call was still inside it";
        EXPECT_FALSE(still_held->has_returned()) << "destroying the executor waited for the hung plugin";
    }
    // The plugin returns into code that must still be loaded, then its worker lets go of it.
    bool released = false;
    for (int i = 0; i < 6000 && !released; ++i) {
        released = hung.expired();
        if (!released) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(released) << "the hung call never let go of its plugin";
}

}  // namespace
}  // namespace skillhost::exec
