// Every host service of ABI 1.1 works the same for a plugin in a runner as in the host: path rules
// ("skillhost.path_check/1"), LLM completions ("skillhost.llm/1" and the 1.0 member) and log
// lines. Each test runs in both modes, so a difference between them is a failure.
#include "isolation_test_support.hpp"

#include "support/log_sink_scope.hpp"

#include <spdlog/spdlog.h>

#include <mutex>
#include <sstream>
#include <vector>

namespace skillhost::plugin::testing {
namespace {

class HostServicesTest : public IsolationTest, public ::testing::WithParamInterface<IsolationMode> {
protected:
    void SetUp() override {
        IsolationTest::SetUp();
        options.isolation.default_mode = GetParam();
    }

    // `key` and `run_id`: the call's idempotency key and operator run (none by default).
    boost::json::object call(const LoadedPlugin& plugin, const std::string& skill, const std::string& args,
                             CallControl* control = nullptr, std::string key = {}, std::string run_id = {}) {
        Call c = context(skill, "alice", control);
        c.idempotency_key = std::move(key);
        c.run_id = std::move(run_id);
        if (control) control->call = &c;
        RawOutcome outcome = plugin.invoke(c, args);
        EXPECT_EQ(outcome.written, RawOutcome::Written::result) << outcome.error_code << ": " << outcome.error_message;
        if (outcome.written != RawOutcome::Written::result) return {};
        return boost::json::parse(outcome.result_json).as_object();
    }
};

// The rules of one call: everything under a `.ssh` directory is withheld; every question is kept.
struct RecordingRules {
    std::mutex mutex;
    std::vector<std::string> asked;
    void install(CallControl& control) {
        control.path_allowed = [this](std::string_view path) {
            std::lock_guard lock(mutex);
            asked.emplace_back(path);
            return path.find("/.ssh") == std::string_view::npos;
        };
    }
};

TEST_P(HostServicesTest, PathRulesDecideEveryPathThePluginAsksAbout) {
    auto plugin = load("sandbox_probe");
    ASSERT_TRUE(plugin);
    ASSERT_EQ(plugin->isolated(), GetParam() == IsolationMode::process);
    RecordingRules rules;
    CallControl control;
    rules.install(control);

    const auto denied = call(*plugin, "check_path", R"({"path":"/ws/.ssh/id_ed25519"})", &control);
    EXPECT_EQ(denied.at("offered"), true);
    EXPECT_EQ(denied.at("allowed"), false);
    const auto allowed = call(*plugin, "check_path", R"({"path":"/ws/docs/notes.txt"})", &control);
    EXPECT_EQ(allowed.at("allowed"), true);
    // The host's rules answered both (the runner neither guessed nor cached).
    EXPECT_EQ(rules.asked, (std::vector<std::string>{"/ws/.ssh/id_ed25519", "/ws/docs/notes.txt"}));
}

TEST_P(HostServicesTest, WithoutRulesEveryPathPassesWithoutAskingTheHost) {
    auto plugin = load("sandbox_probe");
    ASSERT_TRUE(plugin);
    CallControl control;  // no path_allowed: the executor has no path rules for this call
    const auto answer = call(*plugin, "check_path", R"({"path":"/ws/.ssh/id_ed25519"})", &control);
    EXPECT_EQ(answer.at("offered"), true);
    EXPECT_EQ(answer.at("allowed"), true);
}

TEST_P(HostServicesTest, ARuleThatThrowsWithholdsThePath) {
    auto plugin = load("sandbox_probe");
    ASSERT_TRUE(plugin);
    CallControl control;
    control.path_allowed = [](std::string_view) -> bool { throw std::runtime_error("rules unavailable"); };
    EXPECT_EQ(call(*plugin, "check_path", R"({"path":"/ws/a"})", &control).at("allowed"), false);
}

TEST_P(HostServicesTest, ManyConcurrentCallsEachGetTheirOwnRules) {
    auto plugin = load("sandbox_probe");
    ASSERT_TRUE(plugin);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&, i] {
            CallControl control;
            const bool deny_all = i % 2 == 0;
            control.path_allowed = [deny_all](std::string_view) { return !deny_all; };
            for (int round = 0; round < 20; ++round) {
                RawOutcome outcome = plugin->invoke(context("check_path", "alice", &control), R"({"path":"/x"})");
                const std::string expected = deny_all ? R"("allowed":false)" : R"("allowed":true)";
                if (outcome.result_json.find(expected) == std::string::npos) ++wrong;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(wrong.load(), 0);
}

class FixedCompletions final : public CompletionService {
public:
    Result<std::string> complete(const CompletionOrigin& origin, std::string_view role,
                                 std::string_view request) override {
        std::lock_guard lock(mutex);
        seen = std::string(origin.user_id) + "|" + std::string(origin.run_id) + "|" + std::string(role) + "|" +
               std::string(request);
        return std::string(R"({"content":"hi from the model","model":"fixed","backend":"test"})");
    }
    std::mutex mutex;
    std::string seen;
};

TEST_P(HostServicesTest, CompletionsReachTheHostsModelThroughTheLlmExtension) {
    auto completions = std::make_shared<FixedCompletions>();
    options.completions = completions;
    auto plugin = load("extensions_c");
    ASSERT_TRUE(plugin);
    const auto probe = call(*plugin, "probe", "{}");
    EXPECT_EQ(probe.at("llm"), true);
    EXPECT_EQ(probe.at("llm_same_as_member"), true);
    EXPECT_EQ(probe.at("unknown"), false);
    // The operator run that asked for the call is the host's to say (for the llm_call audit
    // record), in the runner too.
    CallControl control;
    const auto answer = call(*plugin, "ask_model", "{}", &control, {}, "run-0123456789abcdef");
    EXPECT_EQ(answer.at("content"), "hi from the model");
    std::lock_guard lock(completions->mutex);
    EXPECT_EQ(completions->seen.substr(0, 35), "alice|run-0123456789abcdef|persona|");
}

TEST_P(HostServicesTest, WithoutAModelACompletionIsUnavailable) {
    auto plugin = load("extensions_c");
    ASSERT_TRUE(plugin);
    RawOutcome outcome = plugin->invoke(context("ask_model"), "{}");
    EXPECT_EQ(outcome.status, SKILLHOST_STATUS_UNAVAILABLE);
    EXPECT_EQ(outcome.error_code, "LLM_UNAVAILABLE");
}

TEST_P(HostServicesTest, TheIdempotencyKeyOfACallReachesThePlugin) {
    auto plugin = load("sandbox_probe");
    ASSERT_TRUE(plugin);
    CallControl control;
    const auto keyed = call(*plugin, "idempotency_key", "{}", &control, "run-0123456789abcdef:3");
    EXPECT_EQ(keyed.at("offered"), true);
    EXPECT_EQ(keyed.at("key"), "run-0123456789abcdef:3");
    // A retry of the same step carries the same key, whichever call carries it.
    const auto again = call(*plugin, "idempotency_key", "{}", &control, "run-0123456789abcdef:3");
    EXPECT_EQ(again.at("key"), "run-0123456789abcdef:3");
    // Without a key of its own a call is never a retry: its key is its unique call id.
    CallControl unkeyed;
    EXPECT_EQ(call(*plugin, "idempotency_key", "{}", &unkeyed).at("key"), "call-1");
}

TEST_P(HostServicesTest, LogLinesReachTheHostsLogAttributedToThePlugin) {
    auto captured = std::make_shared<test::CapturedLog>();
    std::optional<test::LogSinkScope> scope(std::in_place, captured);
    auto plugin = load("sandbox_probe");
    ASSERT_TRUE(plugin);
    // The line travels before the result on the same socket: it is logged when the call returns.
    const auto answer = call(*plugin, "log_line", R"({"message":"probe says hello"})");
    scope.reset();
    EXPECT_EQ(answer.at("allowed"), true);
    const auto lines = captured->lines_with_level();
    EXPECT_NE(std::find(lines.begin(), lines.end(), "warning [plugin sandbox_probe] probe says hello"), lines.end())
        << ::testing::PrintToString(lines);
}

INSTANTIATE_TEST_SUITE_P(BothModes, HostServicesTest,
                         ::testing::Values(IsolationMode::in_process, IsolationMode::process),
                         [](const auto& param_info) { return std::string(to_string(param_info.param)); });

}  // namespace
}  // namespace skillhost::plugin::testing
