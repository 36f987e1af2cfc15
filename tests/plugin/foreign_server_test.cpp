// Foreign MCP servers as plugins, against a real server process (the fixture server, which can be
// told to misbehave): its tools become skills, its results outcomes, and every way it can fail is
// contained in its own plugin with a clear error.
#include "plugin_test_support.hpp"

#include "plugin/call_control.hpp"
#include "plugin/foreign_sampling.hpp"

#include <gmock/gmock.h>

#include <fstream>
#include <mutex>
#include <sstream>

namespace skillhost::plugin {
namespace {

using ::testing::HasSubstr;

std::filesystem::path fixture_server() {
    return test::fixture_dir("foreign_mcp") / "skillhost_fixture_mcp_server";
}

std::string read_all(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::size_t count_of(const std::string& text, std::string_view what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// The model a test stands in for: answers every completion with what it was asked, and records who
// asked.
class EchoingModel : public CompletionService {
public:
    Result<std::string> complete(const CompletionOrigin& origin, std::string_view role,
                                 std::string_view request_json) override {
        std::lock_guard lock(mutex);
        users.emplace_back(origin.user_id);
        const auto request = boost::json::parse(request_json);
        const auto& messages = request.at("messages").as_array();
        return boost::json::serialize(boost::json::object{
            {"content", "the model read: " + std::string(messages.back().at("content").as_string())},
            {"model", "echoing"},
            {"backend", std::string(role)}});
    }
    std::mutex mutex;
    std::vector<std::string> users;
};

class ForeignServerTest : public testing::LoaderTest {
protected:
    test::TempDir plugins{"skillhost-foreign"};
    std::filesystem::path log = plugins / "received.log";

    // A declaration of the fixture server with `flags`, and `extra` lines at its end.
    std::filesystem::path declare(const std::string& flags, const std::string& extra = "",
                                  const std::string& name = "fixture") {
        std::string args = "[--log, " + log.string();
        std::istringstream words(flags);
        for (std::string word; words >> word;) args += ", \"" + word + "\"";
        args += "]";
        const auto file = plugins / (name + ".yaml");
        test::write_file(file, "kind: mcp_server\nname: " + name + "\ntransport: stdio\ncommand: " +
                                   fixture_server().string() + "\nargs: " + args + "\n" + extra);
        return file;
    }

    std::shared_ptr<EchoingModel> model = std::make_shared<EchoingModel>();

    // These tests read what the server received from a log it writes beside its declaration, which
    // its sandbox would not let it write: foreign_sandbox_test.cpp tests the sandbox.
    SandboxMode sandbox = SandboxMode::off;

    Result<std::shared_ptr<LoadedPlugin>> load_declaration(const std::filesystem::path& file) {
        auto server = manifest::load_foreign_server(file);
        if (!server) return std::move(server.error());
        LoaderOptions options{cache.path(), model};
        options.isolation.sandbox = sandbox;
        return PluginLoader(options).load_foreign(server.value());
    }

    std::shared_ptr<LoadedPlugin> load(const std::filesystem::path& file) {
        auto loaded = load_declaration(file);
        if (!loaded) {
            ADD_FAILURE() << loaded.error().code << ": " << loaded.error().message;
            return nullptr;
        }
        return loaded.value();
    }

    RawOutcome call(const LoadedPlugin& plugin, const std::string& skill, std::string_view args,
                    CallControl* control = nullptr) {
        Call c = context(skill, control);
        return plugin.invoke(c, args);
    }
};

TEST_F(ForeignServerTest, ItsToolsAreSkillsNamedServerUnderscoreUnderscoreTool) {
    auto plugin = load(declare(""));
    ASSERT_TRUE(plugin);
    EXPECT_EQ(plugin->manifest().name, "fixture");
    EXPECT_TRUE(plugin->isolated());
    const auto* echo = plugin->manifest().skill("fixture__echo");
    ASSERT_NE(echo, nullptr);
    ASSERT_TRUE(echo->foreign);
    EXPECT_EQ(echo->foreign->tool, "echo");
    EXPECT_EQ(echo->foreign->input_schema.at("type"), "object");
    ASSERT_NE(echo->inputs.property("message"), nullptr);
    EXPECT_TRUE(echo->inputs.is_required("message"));
    EXPECT_NE(plugin->manifest().skill("fixture__write_note"), nullptr);

    auto outcome = call(*plugin, "fixture__echo", R"({"message":"hello"})");
    ASSERT_EQ(outcome.written, RawOutcome::Written::result) << outcome.error_code << outcome.error_message;
    EXPECT_EQ(testing::parse(outcome.result_json).at("message"), "hello");
}

TEST_F(ForeignServerTest, TheServersAnnotationsAreNotBelievedAndDefaultsAreCautious) {
    auto plugin = load(declare(""));
    ASSERT_TRUE(plugin);
    // write_note claims readOnlyHint: true, and writes.
    const auto* note = plugin->manifest().skill("fixture__write_note");
    ASSERT_NE(note, nullptr);
    EXPECT_FALSE(note->annotations.read_only);
    EXPECT_EQ(note->risk, manifest::Risk::high);
    EXPECT_TRUE(note->requires_approval);
    EXPECT_EQ(note->min_trust, manifest::TrustLevel::supervised_auto);
    EXPECT_EQ(note->foreign->annotations.at("readOnlyHint"), true);  // kept, to be shown as the server's claim
}

TEST_F(ForeignServerTest, OverridesAndIncludeExcludeShapeTheSkills) {
    auto plugin = load(declare("",
                               "exclude: [write_*]\n"
                               "skills:\n"
                               "  - id: echo\n"
                               "    risk: low\n"
                               "    min_trust: observe\n"
                               "    requires_approval: false\n"
                               "    annotations: {read_only: true}\n"
                               "  - id: read_paths\n"
                               "    path_inputs: [\"paths[]\"]\n"));
    ASSERT_TRUE(plugin);
    EXPECT_EQ(plugin->manifest().skill("fixture__write_note"), nullptr);
    const auto* echo = plugin->manifest().skill("fixture__echo");
    ASSERT_NE(echo, nullptr);
    EXPECT_EQ(echo->risk, manifest::Risk::low);
    EXPECT_FALSE(echo->requires_approval);
    EXPECT_TRUE(echo->annotations.read_only);
    const auto* read = plugin->manifest().skill("fixture__read_paths");
    ASSERT_NE(read, nullptr);
    EXPECT_THAT(read->path_inputs, ::testing::ElementsAre("paths[]"));
}

TEST_F(ForeignServerTest, AToolErrorIsTheCallsErrorWithTheServersText) {
    auto plugin = load(declare(""));
    ASSERT_TRUE(plugin);
    auto outcome = call(*plugin, "fixture__fail", "{}");
    ASSERT_EQ(outcome.written, RawOutcome::Written::error);
    EXPECT_EQ(outcome.error_code, "UPSTREAM_TOOL_ERROR");
    EXPECT_THAT(outcome.error_message, HasSubstr("failed on purpose"));
}

TEST_F(ForeignServerTest, TextResultsAreTheResultsTextAndTheirBlocksAreContent) {
    auto plugin = load(declare(""));
    ASSERT_TRUE(plugin);
    CallControl control;
    auto outcome = call(*plugin, "fixture__env", R"({"name":"PATH"})", &control);
    ASSERT_EQ(outcome.written, RawOutcome::Written::result) << outcome.error_message;
    // The server gets a fixed PATH, nothing of the daemon's environment.
    EXPECT_EQ(testing::parse(outcome.result_json).at("text"), "/usr/local/bin:/usr/bin:/bin");
    const auto items = control.content.take();
    ASSERT_EQ(items.size(), 1u);
    EXPECT_EQ(items[0].at("type"), "text");

    ::setenv("SKILLHOST_TEST_SECRET", "do-not-leak", 1);
    auto secret = call(*plugin, "fixture__env", R"({"name":"SKILLHOST_TEST_SECRET"})");
    EXPECT_EQ(testing::parse(secret.result_json).at("text"), "(unset)");
}

TEST_F(ForeignServerTest, NoiseOnStdoutBeforeInitializeIsSkipped) {
    auto plugin = load(declare("--noise-before-initialize --stderr-noise"));
    ASSERT_TRUE(plugin);
    auto outcome = call(*plugin, "fixture__echo", R"({"message":"still here"})");
    ASSERT_EQ(outcome.written, RawOutcome::Written::result) << outcome.error_message;
}

TEST_F(ForeignServerTest, AServerThatNeverAnswersFailsToLoadAtTheStartupLimit) {
    const auto started = std::chrono::steady_clock::now();
    auto loaded = load_declaration(declare("--never-answer", "limits: {startup_timeout_ms: 300}\n"));
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.error().code, "UPSTREAM_TIMEOUT");
    EXPECT_THAT(loaded.error().message, HasSubstr("startup_timeout_ms (300 ms)"));
    EXPECT_EQ(loaded.error().details.at("plugin"), "fixture");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
}

TEST_F(ForeignServerTest, AMissingCommandSaysWhatToInstall) {
    const auto file = plugins / "missing.yaml";
    test::write_file(file, "kind: mcp_server\nname: missing\ntransport: stdio\ncommand: no-such-mcp-server\n");
    auto loaded = load_declaration(file);
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.error().code, "RUNNER_START_FAILED");
    EXPECT_THAT(loaded.error().message, HasSubstr("no-such-mcp-server"));
}

TEST_F(ForeignServerTest, ACallNeedingASecretTheUserHasNotSetIsRefusedBeforeTheServerSeesIt) {
    // The listing process starts without it (no user, no source): the server loads.
    auto plugin = load(declare("", "secrets:\n  - {name: API_TOKEN, env: API_TOKEN}\n"));
    ASSERT_TRUE(plugin);
    auto refused = call(*plugin, "fixture__echo", R"({"message":"needs a token"})");
    ASSERT_EQ(refused.written, RawOutcome::Written::error);
    EXPECT_EQ(refused.error_code, "UPSTREAM_SECRET_MISSING");
    EXPECT_THAT(refused.error_message, HasSubstr("skillhost secrets set API_TOKEN"));
    EXPECT_EQ(count_of(read_all(log), "needs a token"), 0u) << "the server never saw the call";
}

TEST_F(ForeignServerTest, ACrashFailsTheCallInFlightWithoutResendingItAndTheNextCallRestartsIt) {
    auto plugin = load(declare("--crash-on-call 2"));
    ASSERT_TRUE(plugin);
    ASSERT_EQ(call(*plugin, "fixture__echo", R"({"message":"one"})").written, RawOutcome::Written::result);
    auto crashed = call(*plugin, "fixture__echo", R"({"message":"two"})");
    ASSERT_EQ(crashed.written, RawOutcome::Written::error);
    EXPECT_EQ(crashed.error_code, "PLUGIN_CRASHED");
    EXPECT_THAT(crashed.error_message, HasSubstr("exited with status 3"));
    EXPECT_EQ(count_of(read_all(log), "\"two\""), 1u) << "the call that crashed it is never written again";

    RawOutcome again;
    for (int attempt = 0; attempt < 100; ++attempt) {  // until the restart's backoff has passed
        again = call(*plugin, "fixture__echo", R"({"message":"three"})");
        if (again.error_code != "PLUGIN_RESTARTING") break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(again.written, RawOutcome::Written::result) << again.error_code << again.error_message;
    EXPECT_EQ(testing::parse(again.result_json).at("message"), "three");
}

TEST_F(ForeignServerTest, RepeatedCrashesQuarantineIt) {
    auto plugin = load(declare("--crash-on-call 1"));
    ASSERT_TRUE(plugin);
    for (int attempt = 0; attempt < 200 && !plugin->quarantine(); ++attempt) {
        call(*plugin, "fixture__echo", R"({"message":"x"})");
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(plugin->quarantine());
    auto refused = call(*plugin, "fixture__echo", R"({"message":"x"})");
    EXPECT_EQ(refused.error_code, "PLUGIN_QUARANTINED");
    EXPECT_THAT(refused.error_message, HasSubstr("fixture"));
}

TEST_F(ForeignServerTest, AHungCallIsCancelledUpstreamWhenTheCallerCancels) {
    auto plugin = load(declare("--hang-on-call"));
    ASSERT_TRUE(plugin);
    CallControl control;
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        control.cancelled = true;
    });
    auto outcome = call(*plugin, "fixture__echo", R"({"message":"never"})", &control);
    canceller.join();
    EXPECT_EQ(outcome.error_code, "UPSTREAM_CANCELLED");
    for (int i = 0; i < 100 && read_all(log).find("notifications/cancelled") == std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_THAT(read_all(log), HasSubstr("notifications/cancelled"));
}

TEST_F(ForeignServerTest, AHungCallTimesOutAtItsDeadline) {
    auto plugin = load(declare("--hang-on-call"));
    ASSERT_TRUE(plugin);
    Call c = context("fixture__echo");
    c.deadline_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count() +
        200;
    auto outcome = plugin->invoke(c, R"({"message":"never"})");
    EXPECT_EQ(outcome.error_code, "UPSTREAM_TIMEOUT");
    // The server is still usable for others: ping-free proof, another plugin call is answered by the
    // same process only if it answers calls, which this one never does; its session stays open.
    EXPECT_FALSE(plugin->quarantine());
}

// A hung call whose server still answers ping keeps its process (the hung call above); one whose
// server answers nothing at all is wedged: ended at once, and the next call gets a new process.
TEST_F(ForeignServerTest, AWedgedServerIsEndedAndTheNextCallStartsItAgain) {
    auto plugin = load(declare("--wedge-on-call 2"));  // each process wedges on its second call
    ASSERT_TRUE(plugin);
    const auto pid = [&]() -> std::string {
        auto outcome = call(*plugin, "fixture__whoami", "{}");
        if (outcome.written != RawOutcome::Written::result) return outcome.error_code;
        const std::string text(testing::parse(outcome.result_json).at("text").as_string());
        return text.substr(text.find("pid="), text.find(' ', text.find("pid=")) - text.find("pid="));
    };
    const std::string first = pid();
    ASSERT_THAT(first, ::testing::StartsWith("pid="));
    Call c = context("fixture__echo");
    c.deadline_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count() +
        300;
    auto wedged = plugin->invoke(c, R"({"message":"wedge"})");
    EXPECT_EQ(wedged.error_code, "UPSTREAM_TIMEOUT");
    EXPECT_THAT(wedged.error_message, HasSubstr("answered no ping either, so it was ended"));
    EXPECT_EQ(plugin->supervision().at("crashes"), 1);
    // Started again after the crash backoff: another process answers.
    std::string second = "PLUGIN_RESTARTING";
    for (int i = 0; i < 100 && second == "PLUGIN_RESTARTING"; ++i) {
        second = pid();
        if (second == "PLUGIN_RESTARTING") std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_THAT(second, ::testing::StartsWith("pid="));
    EXPECT_NE(second, first);
}

TEST_F(ForeignServerTest, AnAnswerOverTheLimitFailsThatCallNamingTheLimit) {
    auto plugin = load(declare("", "limits: {max_message_bytes: 65536}\n"));
    ASSERT_TRUE(plugin);
    auto big = call(*plugin, "fixture__big", R"({"bytes":200000})");
    ASSERT_EQ(big.written, RawOutcome::Written::error);
    EXPECT_EQ(big.error_code, "UPSTREAM_MESSAGE_TOO_LARGE");
    EXPECT_THAT(big.error_message, HasSubstr("65536"));
    auto small = call(*plugin, "fixture__echo", R"({"message":"after"})");
    EXPECT_EQ(small.written, RawOutcome::Written::result) << small.error_message;
}

TEST_F(ForeignServerTest, ANotificationFloodDoesNotStopCalls) {
    auto plugin = load(declare("--flood 2000"));
    ASSERT_TRUE(plugin);
    for (int i = 0; i < 3; ++i) {
        auto outcome = call(*plugin, "fixture__echo", R"({"message":"through"})");
        ASSERT_EQ(outcome.written, RawOutcome::Written::result) << outcome.error_message;
    }
}

TEST_F(ForeignServerTest, ADefinitionChangedWithListChangedIsRefusedAndANewToolIsNotOffered) {
    // The fixture changes echo's description and adds `exfiltrate` after its first listing, and says so.
    auto plugin = load(declare("--change-after-list"));
    ASSERT_TRUE(plugin);
    EXPECT_EQ(plugin->manifest().skill("fixture__exfiltrate"), nullptr);
    RawOutcome outcome;
    for (int attempt = 0; attempt < 100; ++attempt) {  // the notification may trail the listing
        outcome = call(*plugin, "fixture__echo", R"({"message":"x"})");
        if (outcome.error_code == "UPSTREAM_DEFINITION_CHANGED") break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(outcome.error_code, "UPSTREAM_DEFINITION_CHANGED") << outcome.error_message;
    EXPECT_THAT(outcome.error_message, HasSubstr("'echo'"));
    // A tool whose definition did not change is still called.
    auto add = call(*plugin, "fixture__add", R"({"a":1,"b":2})");
    EXPECT_EQ(add.written, RawOutcome::Written::result) << add.error_code << add.error_message;
}

TEST_F(ForeignServerTest, ARugPullAfterARestartIsCaughtByThePins) {
    // The fixture starts with changed definitions when the file exists: from its second start on,
    // so the instance a user's call starts is not the server whose tools were listed.
    auto plugin = load(declare("--rug-pull-file " + (plugins / "started").string()));
    ASSERT_TRUE(plugin);
    auto outcome = call(*plugin, "fixture__echo", R"({"message":"x"})");
    EXPECT_EQ(outcome.error_code, "UPSTREAM_DEFINITION_CHANGED") << outcome.error_message;
    auto unchanged = call(*plugin, "fixture__add", R"({"a":1,"b":2})");
    EXPECT_EQ(unchanged.written, RawOutcome::Written::result) << unchanged.error_message;
    EXPECT_EQ(count_of(read_all(log), "\"message\":\"x\""), 0u) << "the changed tool was never called";
}

TEST_F(ForeignServerTest, EachUserHasAnInstanceOfTheirOwnWithTheirWorkspaceAsRoot) {
    auto plugin = load(declare("--roots"));
    ASSERT_TRUE(plugin);
    Call alice = context("fixture__whoami");
    alice.workspace_root = home / "workspace" / "alice";
    Call bob = alice;
    bob.user_id = "bob";
    bob.workspace_root = home / "workspace" / "bob";
    const auto pid_of = [](const RawOutcome& outcome) {
        const std::string text(testing::parse(outcome.result_json).at("text").as_string());
        return text.substr(text.find("pid="), text.find(' ', text.find("pid=")) - text.find("pid="));
    };
    const auto alice_first = plugin->invoke(alice, "{}");
    const auto bob_first = plugin->invoke(bob, "{}");
    const auto alice_again = plugin->invoke(alice, "{}");
    ASSERT_EQ(alice_first.written, RawOutcome::Written::result) << alice_first.error_message;
    ASSERT_EQ(bob_first.written, RawOutcome::Written::result) << bob_first.error_message;
    EXPECT_NE(pid_of(alice_first), pid_of(bob_first));
    EXPECT_EQ(pid_of(alice_first), pid_of(alice_again));
    EXPECT_EQ(plugin->supervision().at("runners"), 2);

    Call roots = alice;
    roots.skill_id = "fixture__list_roots";
    auto listed = plugin->invoke(roots, "{}");
    ASSERT_EQ(listed.written, RawOutcome::Written::result) << listed.error_message;
    EXPECT_EQ(std::string(testing::parse(listed.result_json).at("text").as_string()),
              "file://" + alice.workspace_root.string());
}

TEST_F(ForeignServerTest, SamplingIsRefusedWithoutPermissionsLlm) {
    auto plugin = load(declare("--sample"));
    ASSERT_TRUE(plugin);
    auto outcome = call(*plugin, "fixture__ask_model", R"({"question":"what is six times seven?"})");
    ASSERT_EQ(outcome.written, RawOutcome::Written::error);
    EXPECT_EQ(outcome.error_code, "UPSTREAM_TOOL_ERROR");
    EXPECT_THAT(outcome.error_message, HasSubstr("permissions: {llm: true}"));
    EXPECT_TRUE(model->users.empty()) << "no model was asked";
}

TEST_F(ForeignServerTest, SamplingWithPermissionsLlmIsAnsweredByTheHostsModelForTheCallingUser) {
    auto plugin = load(declare("--sample", "permissions: {llm: true}\n"));
    ASSERT_TRUE(plugin);
    auto outcome = call(*plugin, "fixture__ask_model", R"({"question":"what is six times seven?"})");
    ASSERT_EQ(outcome.written, RawOutcome::Written::result) << outcome.error_code << outcome.error_message;
    EXPECT_THAT(std::string(testing::parse(outcome.result_json).at("text").as_string()),
                HasSubstr("the model read: what is six times seven?"));
    std::lock_guard lock(model->mutex);
    EXPECT_THAT(model->users, ::testing::ElementsAre("alice"));
}

TEST(ForeignSampling, OnlyTextMessagesOfUserAndAssistantBecomeACompletionRequest) {
    auto ok = completion_request_from_sampling(boost::json::parse(
        R"({"systemPrompt":"be brief","maxTokens":50,"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]})"));
    ASSERT_TRUE(ok) << ok.error().message;
    EXPECT_EQ(testing::parse(*ok).at("messages").as_array().size(), 2u);
    EXPECT_EQ(testing::parse(*ok).at("max_tokens"), 50);
    for (const char* bad :
         {R"({})", R"({"messages":[]})", R"({"messages":[{"role":"system","content":{"type":"text","text":"x"}}]})",
          R"({"messages":[{"role":"user","content":{"type":"image","data":"AA=="}}]})"}) {
        auto refused = completion_request_from_sampling(boost::json::parse(bad));
        ASSERT_FALSE(refused) << bad;
        EXPECT_EQ(refused.error().code, "CONTENT_INVALID") << bad;
    }
}

TEST_F(ForeignServerTest, DiscoveryTakesDeclarationsBesideManifestsAndOneBadServerTouchesNoOther) {
    test::copy_fixture("echo", plugins.path());
    declare("");
    declare("--never-answer", "limits: {startup_timeout_ms: 200}\n", "wedged");
    LoaderOptions options{cache.path(), nullptr};
    options.isolation.sandbox = sandbox;
    DiscoveryReport report = discover_plugins(PluginLoader(options), {plugins.path()});
    std::vector<std::string> names;
    for (const auto& plugin : report.plugins) names.push_back(plugin->manifest().name);
    EXPECT_THAT(names, ::testing::UnorderedElementsAre("echo", "fixture"));
    ASSERT_EQ(report.failures.size(), 1u);
    EXPECT_EQ(report.failures[0].plugin_name, "wedged");
    EXPECT_EQ(report.failures[0].error.code, "UPSTREAM_TIMEOUT");
}

}  // namespace
}  // namespace skillhost::plugin
