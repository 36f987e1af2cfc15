// Resources and prompts ("skillhost.resources/1", "skillhost.prompts/1") of a plugin in a runner:
// the same answers and errors as in-process, the same limits, crashes and hangs ending only the
// request, and a hostile runner's malformed or oversized answers refused.
#include "isolation_test_support.hpp"
#include "plugin/process_plugin.hpp"

#include <signal.h>

#include <string>
#include <vector>

namespace skillhost::plugin::testing {
namespace {

using Written = RawOutcome::Written;

// One extension request, run the same way against either mode.
struct Request {
    const char* what;
    bool prompts;
    int request;  // ResourceRequest or PromptRequest
    std::string name, json;
    std::size_t max_bytes = std::size_t{8} << 20;
};

RawOutcome ask(const LoadedPlugin& plugin, const Call& context, const Request& r) {
    if (r.prompts)
        return plugin.request_prompts(static_cast<PromptRequest>(r.request), context, r.name, r.json, r.max_bytes);
    return plugin.request_resources(static_cast<ResourceRequest>(r.request), context, r.name, r.max_bytes);
}

class PublishedExtensionsTest : public IsolationTest {
protected:
    std::shared_ptr<LoadedPlugin> load_in(std::string_view fixture, IsolationMode mode) {
        options.isolation.default_mode = mode;
        return load(fixture);
    }
};

// The signal that ended the runner, as details.signal_name says. Sanitizer builds report a fault
// themselves and exit with their own status (no signal), so there only a named signal is checked.
void expect_signal(const boost::json::object& details, std::string_view name) {
#if defined(__SANITIZE_ADDRESS__)
    if (details.contains("signal_name")) {
        EXPECT_EQ(details.at("signal_name").as_string(), name);
    }
#else
    ASSERT_TRUE(details.contains("signal_name")) << boost::json::serialize(details);
    EXPECT_EQ(details.at("signal_name").as_string(), name);
#endif
}

constexpr int kList = 0, kTemplates = 1, kRead = 2;
constexpr int kPromptList = 0, kPromptGet = 1, kComplete = 2;

TEST_F(PublishedExtensionsTest, AnIsolatedPluginAnswersExactlyAsInProcess) {
    auto in_host = load_in("conformance", IsolationMode::in_process);
    auto isolated = load_in("conformance", IsolationMode::process);
    ASSERT_TRUE(in_host && isolated);
    ASSERT_TRUE(isolated->isolated());

    // The tables the host reads the governing skill and URI prefix from.
    const auto* r_host = static_cast<const skillhost_resources_v1*>(in_host->extension(SKILLHOST_EXT_RESOURCES));
    const auto* r_iso = static_cast<const skillhost_resources_v1*>(isolated->extension(SKILLHOST_EXT_RESOURCES));
    ASSERT_TRUE(r_host && r_iso);
    EXPECT_STREQ(r_iso->governing_skill, r_host->governing_skill);
    EXPECT_STREQ(r_iso->uri_prefix, r_host->uri_prefix);
    EXPECT_EQ(r_iso->list == nullptr, r_host->list == nullptr);
    EXPECT_EQ(r_iso->list_templates == nullptr, r_host->list_templates == nullptr);
    const auto* p_host = static_cast<const skillhost_prompts_v1*>(in_host->extension(SKILLHOST_EXT_PROMPTS));
    const auto* p_iso = static_cast<const skillhost_prompts_v1*>(isolated->extension(SKILLHOST_EXT_PROMPTS));
    ASSERT_TRUE(p_host && p_iso);
    EXPECT_STREQ(p_iso->governing_skill, p_host->governing_skill);
    EXPECT_EQ(p_iso->complete == nullptr, p_host->complete == nullptr);

    const std::string completion =
        R"({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg2","value":"be"},)"
        R"("context":{"arguments":{}}})";
    const std::vector<Request> requests{
        {"resources list", false, kList, "", ""},
        {"resources templates", false, kTemplates, "", ""},
        {"read text", false, kRead, "test://static-text", ""},
        {"read binary", false, kRead, "test://static-binary", ""},
        {"read templated", false, kRead, "test://template/123/data", ""},
        {"read unknown", false, kRead, "test://nothing-here", ""},
        {"read over the limit", false, kRead, "test://static-text", "", 8},
        {"prompts list", true, kPromptList, "", ""},
        {"prompt get", true, kPromptGet, "test_simple_prompt", "{}"},
        {"prompt get with arguments", true, kPromptGet, "test_prompt_with_arguments", R"({"arg1":"a","arg2":"b"})"},
        {"prompt unknown", true, kPromptGet, "no_such_prompt", "{}"},
        {"completion", true, kComplete, "", completion},
        {"prompts list over the limit", true, kPromptList, "", "", 16},
    };
    for (const Request& r : requests) {
        SCOPED_TRACE(r.what);
        const RawOutcome a = ask(*in_host, context("test_simple_text"), r);
        const RawOutcome b = ask(*isolated, context("test_simple_text"), r);
        EXPECT_EQ(b.status, a.status);
        EXPECT_EQ(b.written, a.written);
        EXPECT_EQ(b.result_json, a.result_json);
        EXPECT_EQ(b.error_code, a.error_code);
        EXPECT_EQ(b.error_message, a.error_message);
        EXPECT_EQ(b.error_details_json, a.error_details_json);
    }
    // The limit cases really were errors, not equal successes.
    EXPECT_EQ(ask(*isolated, context("test_simple_text"), requests[6]).error_code, "RESULT_TOO_LARGE");
    EXPECT_EQ(ask(*isolated, context("test_simple_text"), requests[12]).error_code, "RESULT_TOO_LARGE");
}

TEST_F(PublishedExtensionsTest, APluginWithoutTheExtensionsAnswersUnsupportedInBothModes) {
    for (IsolationMode mode : {IsolationMode::in_process, IsolationMode::process}) {
        auto plugin = load_in("echo", mode);
        ASSERT_TRUE(plugin);
        EXPECT_EQ(plugin->extension(SKILLHOST_EXT_RESOURCES), nullptr);
        EXPECT_EQ(plugin->extension(SKILLHOST_EXT_PROMPTS), nullptr);
        EXPECT_EQ(plugin->request_resources(ResourceRequest::list, context("echo"), {}, 1024).error_code,
                  "RESOURCES_UNSUPPORTED");
        EXPECT_EQ(plugin->request_prompts(PromptRequest::list, context("echo"), {}, {}, 1024).error_code,
                  "PROMPTS_UNSUPPORTED");
    }
}

TEST_F(PublishedExtensionsTest, ACrashInsideARequestEndsOnlyThatRequestNamingIt) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    RawOutcome crashed = plugin->request_resources(ResourceRequest::read, context("ok"), "hostile://segfault", 1 << 20);
    EXPECT_EQ(crashed.error_code, "PLUGIN_CRASHED") << crashed.error_message;
    EXPECT_NE(crashed.error_message.find("resources read()"), std::string::npos) << crashed.error_message;
    auto details = details_of(crashed);
    expect_signal(details, "SIGSEGV");
    EXPECT_EQ(details.at("entry"), "resources read()");
    EXPECT_EQ(details.at("skill"), "ok");

    // The next request starts a new runner and works.
    RawOutcome fine = plugin->request_resources(ResourceRequest::read, context("ok"), "hostile://fine", 1 << 20);
    EXPECT_EQ(fine.status, SKILLHOST_STATUS_OK) << fine.error_code << ": " << fine.error_message;
    EXPECT_NE(fine.result_json.find("\"fine\""), std::string::npos);

    RawOutcome aborted = plugin->request_prompts(PromptRequest::get, context("ok"), "abort", "{}", 1 << 20);
    EXPECT_EQ(aborted.error_code, "PLUGIN_CRASHED");
    expect_signal(details_of(aborted), "SIGABRT");
    EXPECT_EQ(details_of(aborted).at("entry"), "prompts get()");
    RawOutcome listed = plugin->request_prompts(PromptRequest::list, context("ok"), {}, {}, 1 << 20);
    EXPECT_EQ(listed.status, SKILLHOST_STATUS_OK) << listed.error_code;
    // A function the plugin does not have is unsupported, as in-process, without asking the runner.
    EXPECT_EQ(plugin->request_prompts(PromptRequest::complete, context("ok"), {}, "{}", 1 << 20).error_code,
              "PROMPTS_UNSUPPORTED");
    EXPECT_EQ(plugin->request_resources(ResourceRequest::list_templates, context("ok"), {}, 1 << 20).error_code,
              "RESOURCES_UNSUPPORTED");
}

TEST_F(PublishedExtensionsTest, AnOversizedAnswerIsRefusedInsideTheRunnerAsInProcess) {
    for (IsolationMode mode : {IsolationMode::in_process, IsolationMode::process}) {
        auto plugin = load_in("hostile", mode);
        ASSERT_TRUE(plugin);
        RawOutcome huge =
            plugin->request_prompts(PromptRequest::get, context("ok"), "huge", "{}", std::size_t{8} << 20);
        EXPECT_EQ(huge.error_code, "RESULT_TOO_LARGE") << huge.error_message;
    }
}

TEST_F(PublishedExtensionsTest, ARequestIgnoringItsDeadlineHasTheRunnerKilled) {
    auto plugin = load("hostile");
    ASSERT_TRUE(plugin);
    CallControl control;
    RawOutcome hung =
        plugin->request_resources(ResourceRequest::read, timed("ok", 100, &control), "hostile://hang", 1 << 20);
    EXPECT_EQ(hung.error_code, "PLUGIN_KILLED") << hung.error_message;
    EXPECT_NE(hung.error_message.find("resources read()"), std::string::npos) << hung.error_message;
    EXPECT_EQ(plugin->request_resources(ResourceRequest::list, context("ok"), {}, 1 << 20).status, SKILLHOST_STATUS_OK);
}

// ---- A hostile runner (tests/isolation/hostile_runner.cpp) ----

class HostileRunnerTest : public IsolationTest {
protected:
    test::TempDir dir{"skillhost-hostile-runner"};

    std::shared_ptr<LoadedPlugin> load_with(std::string_view mode) {
        const auto manifest = test::copy_fixture("hostile", dir.path());
        test::write_file(dir / "runner-mode", mode);
        options.isolation.runner = SKILLHOST_HOSTILE_RUNNER;
        auto loaded = PluginLoader(options).load_file(manifest);
        if (!loaded.ok()) ADD_FAILURE() << loaded.error().code << ": " << loaded.error().message;
        return loaded.ok() ? loaded.value() : nullptr;
    }

    RawOutcome read(const LoadedPlugin& plugin) const {
        return plugin.request_resources(ResourceRequest::read, context("ok"), "hostile://x", 1 << 20);
    }
};

TEST_F(HostileRunnerTest, AnUnreadableAnswerIsAProtocolError) {
    for (std::string_view mode : {"garbage", "bad_written"}) {
        SCOPED_TRACE(mode);
        auto plugin = load_with(mode);
        ASSERT_TRUE(plugin);
        RawOutcome outcome = read(*plugin);
        EXPECT_EQ(outcome.written, Written::error);
        EXPECT_EQ(outcome.error_code, "RUNNER_PROTOCOL_ERROR") << outcome.error_message;
        // The connection stays in step: a skill call after it is answered.
        EXPECT_EQ(plugin->invoke(context("ok"), "{}").result_json, R"({"ok":true})");
    }
}

// A runner asks the host only for extensions the host answers, for a call in flight, in the
// extension module's encoding; anything else is refused by name and the connection goes on.
TEST_F(HostileRunnerTest, HostRequestsNoRealRunnerSendsAreRefusedByName) {
    auto plugin = load_with("host_requests");
    ASSERT_TRUE(plugin);
    CallControl control;
    RawOutcome outcome = plugin->invoke(context("ok", "alice", &control), "{}");
    ASSERT_EQ(outcome.written, Written::result) << outcome.error_code << ": " << outcome.error_message;
    const boost::json::object answers = boost::json::parse(outcome.result_json).as_object();
    EXPECT_EQ(answers.at("unknown_extension"), "UNKNOWN_HOST_SERVICE");
    EXPECT_EQ(answers.at("answered_in_the_runner"), "UNKNOWN_HOST_SERVICE");
    EXPECT_EQ(answers.at("call_not_in_flight"), "HOST_REQUEST_WITHOUT_CALL");
    EXPECT_EQ(answers.at("outside_any_call"), "STORAGE_UNAVAILABLE");
    EXPECT_EQ(answers.at("unreadable_body"), "RUNNER_PROTOCOL_ERROR");
    EXPECT_EQ(answers.at("unreadable_request"), "RUNNER_PROTOCOL_ERROR");
    EXPECT_EQ(answers.at("path_without_rules"), "result:true");
    // Nothing of it reached the call, and the runner still serves calls.
    EXPECT_TRUE(control.content.take().empty());
    EXPECT_EQ(plugin->invoke(context("ok"), "{}").written, Written::result);
}

TEST_F(HostileRunnerTest, AnAnswerOverTheRequestsLimitHasTheRunnerKilled) {
    for (std::string_view mode : {"oversized", "huge_header"}) {
        SCOPED_TRACE(mode);
        auto plugin = load_with(mode);
        ASSERT_TRUE(plugin);
        RawOutcome outcome = read(*plugin);
        EXPECT_EQ(outcome.error_code, "PLUGIN_KILLED") << outcome.error_message;
        EXPECT_NE(outcome.error_message.find("over the limit"), std::string::npos) << outcome.error_message;
        if (mode == "oversized") {
            EXPECT_EQ(details_of(outcome).at("limit"), "extension_answer_bytes");
        }
        EXPECT_EQ(plugin->invoke(context("ok"), "{}").result_json, R"({"ok":true})");
    }
}

TEST_F(HostileRunnerTest, ARunnerExitingOnARequestEndsItWithPluginCrashed) {
    auto plugin = load_with("exit");
    ASSERT_TRUE(plugin);
    RawOutcome outcome = plugin->request_prompts(PromptRequest::list, context("ok"), {}, {}, 1 << 20);
    EXPECT_EQ(outcome.error_code, "PLUGIN_CRASHED") << outcome.error_message;
    EXPECT_EQ(details_of(outcome).at("exit_status"), 3);
    EXPECT_EQ(details_of(outcome).at("entry"), "prompts list()");
}

TEST_F(HostileRunnerTest, OverlongExtensionNamesInTheReadyMessageLeaveTheExtensionOut) {
    auto plugin = load_with("long_names");
    ASSERT_TRUE(plugin);
    EXPECT_EQ(plugin->extension(SKILLHOST_EXT_RESOURCES), nullptr);
    EXPECT_NE(plugin->extension(SKILLHOST_EXT_PROMPTS), nullptr);
}

}  // namespace
}  // namespace skillhost::plugin::testing
