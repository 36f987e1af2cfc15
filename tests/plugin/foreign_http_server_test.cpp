// Foreign MCP servers on the Streamable HTTP transport, as plugins, against a real HTTP server on
// loopback (support/mcp_http_server): JSON and event-stream answers, the session id, the server's
// requests on a stream, an expired session, and every way the server can fail a call.
#include "plugin_test_support.hpp"

#include "plugin/call_control.hpp"
#include "support/loopback_server.hpp"
#include "support/mcp_http_server.hpp"

#include <gmock/gmock.h>

#include <algorithm>
#include <set>
#include <thread>

namespace skillhost::plugin {
namespace {

using ::testing::HasSubstr;

class ForeignHttpServerTest : public testing::LoaderTest {
protected:
    test::TempDir plugins{"skillhost-foreign-http"};
    skillhost::testing::McpHttpServer server;

    std::shared_ptr<LoadedPlugin> load(const std::string& extra = "", const std::string& url = "",
                                       std::shared_ptr<SecretSource> secrets = nullptr) {
        const auto file = plugins / "remote.yaml";
        test::write_file(file, "kind: mcp_server\nname: remote\ntransport: streamable_http\nurl: " +
                                   (url.empty() ? server.url() : url) + "\nheaders: {X-Team: blue}\n" + extra);
        auto declared = manifest::load_foreign_server(file);
        if (!declared) {
            ADD_FAILURE() << declared.error().message;
            return nullptr;
        }
        LoaderOptions options{cache.path(), nullptr};
        options.secrets = std::move(secrets);
        options.listing_user = "owner";
        auto loaded = PluginLoader(options).load_foreign(declared.value());
        if (!loaded) {
            last_error = loaded.error();
            return nullptr;
        }
        return loaded.value();
    }

    RawOutcome call(const LoadedPlugin& plugin, const std::string& skill, std::string_view args,
                    CallControl* control = nullptr, const std::string& user = "alice") {
        Call c = context(skill, control);
        c.user_id = user;
        c.workspace_root = "/srv/work/" + user;
        return plugin.invoke(c, args);
    }

    std::size_t count(std::string_view method) const {
        const auto methods = server.posted_methods();
        return static_cast<std::size_t>(std::count(methods.begin(), methods.end(), method));
    }

    Error last_error;
};

TEST_F(ForeignHttpServerTest, ItsToolsAreSkillsAnsweredByJsonBodiesAndEventStreams) {
    auto plugin = load();
    ASSERT_TRUE(plugin) << last_error.code << ": " << last_error.message;
    ASSERT_NE(plugin->manifest().skill("remote__echo"), nullptr);
    ASSERT_NE(plugin->manifest().skill("remote__stream_echo"), nullptr);

    auto json = call(*plugin, "remote__echo", R"({"message":"hello"})");
    ASSERT_EQ(json.written, RawOutcome::Written::result) << json.error_code << json.error_message;
    EXPECT_EQ(testing::parse(json.result_json).at("message"), "hello");
    auto streamed = call(*plugin, "remote__stream_echo", R"({"message":"through the stream"})");
    ASSERT_EQ(streamed.written, RawOutcome::Written::result) << streamed.error_code << streamed.error_message;
    EXPECT_EQ(testing::parse(streamed.result_json).at("message"), "through the stream");

    // Every POST says what it accepts; after initialize each carries the session and the version.
    bool saw_call = false;
    for (const auto& request : server.requests()) {
        if (request.method != "POST") continue;
        EXPECT_EQ(request.header("accept"), "application/json, text/event-stream");
        EXPECT_EQ(request.header("content-type"), "application/json");
        EXPECT_EQ(request.header("x-team"), "blue");
        const auto message = request.json();
        const auto* method = message.if_contains("method");
        if (method == nullptr) continue;  // the client's answer to the server's ping
        if (*method == "tools/call" || *method == "notifications/initialized") {
            EXPECT_THAT(request.header("mcp-session-id"), HasSubstr("session-"));
            EXPECT_EQ(request.header("mcp-protocol-version"), "2025-06-18");
            saw_call = true;
        }
        if (*method == "initialize") {
            EXPECT_EQ(request.header("mcp-session-id"), "");
        }
    }
    EXPECT_TRUE(saw_call);
    EXPECT_GE(count("(answer)"), 1u) << "the ping on the stream was answered";
}

class UserTokens final : public SecretSource {
public:
    Result<std::optional<std::string>> secret(std::string_view user, std::string_view name) const override {
        if (name != "API_TOKEN" || user == "bob") return std::optional<std::string>();
        return std::optional<std::string>("token-of-" + std::string(user));
    }
};

TEST_F(ForeignHttpServerTest, EachUsersSessionCarriesTheirOwnSecretHeader) {
    auto plugin = load("secrets:\n  - {name: API_TOKEN, header: Authorization, format: \"Bearer {value}\"}\n", "",
                       std::make_shared<UserTokens>());
    ASSERT_TRUE(plugin) << last_error.code << ": " << last_error.message;
    auto alice = call(*plugin, "remote__echo", R"({"message":"as alice"})", nullptr, "alice");
    ASSERT_EQ(alice.written, RawOutcome::Written::result) << alice.error_code << alice.error_message;
    auto bob = call(*plugin, "remote__echo", R"({"message":"as bob"})", nullptr, "bob");
    EXPECT_EQ(bob.error_code, "UPSTREAM_SECRET_MISSING");
    std::set<std::string> seen;
    for (const auto& request : server.requests()) {
        if (request.method != "POST") continue;
        seen.insert(request.header("authorization"));
        const std::string& body = request.body;
        if (body.find("as alice") != std::string::npos) {
            EXPECT_EQ(request.header("authorization"), "Bearer token-of-alice");
        }
        EXPECT_EQ(body.find("as bob"), std::string::npos) << "bob's call never left without his token";
    }
    // The listing went with the first owner's token; alice's session with hers.
    EXPECT_EQ(seen, (std::set<std::string>{"Bearer token-of-owner", "Bearer token-of-alice"}));
}

TEST_F(ForeignHttpServerTest, TheServersRequestOnAStreamIsAnsweredWithTheCallingUsersRoots) {
    auto plugin = load();
    ASSERT_TRUE(plugin) << last_error.message;
    auto roots = call(*plugin, "remote__roots", "{}");
    ASSERT_EQ(roots.written, RawOutcome::Written::result) << roots.error_code << roots.error_message;
    EXPECT_THAT(roots.result_json, HasSubstr("file:///srv/work/alice"));
}

TEST_F(ForeignHttpServerTest, EachUserHasAnHttpSessionOfTheirOwnEndedWhenThePluginGoes) {
    auto plugin = load();
    ASSERT_TRUE(plugin) << last_error.message;
    EXPECT_EQ(call(*plugin, "remote__echo", R"({"message":"a"})", nullptr, "alice").written,
              RawOutcome::Written::result);
    EXPECT_EQ(call(*plugin, "remote__echo", R"({"message":"b"})", nullptr, "bob").written, RawOutcome::Written::result);
    EXPECT_EQ(server.sessions_started(), 3) << "the listing's session, alice's and bob's";
    plugin.reset();
    EXPECT_EQ(server.deleted_sessions().size(), 3u) << "every session is ended with DELETE";
}

TEST_F(ForeignHttpServerTest, AnExpiredSessionIsInitializedAgainAndOnlyThatRequestResent) {
    auto plugin = load();
    ASSERT_TRUE(plugin) << last_error.message;
    ASSERT_EQ(call(*plugin, "remote__echo", R"({"message":"one"})").written, RawOutcome::Written::result);
    server.expire_sessions();
    const std::size_t initializes = count("initialize");
    auto after = call(*plugin, "remote__echo", R"({"message":"two"})");
    ASSERT_EQ(after.written, RawOutcome::Written::result) << after.error_code << after.error_message;
    EXPECT_EQ(testing::parse(after.result_json).at("message"), "two");
    EXPECT_EQ(count("initialize"), initializes + 1);
    EXPECT_EQ(server.tool_calls(), 2) << "the request refused with 404 was not processed; the resend was";
}

TEST_F(ForeignHttpServerTest, AHungCallTimesOutAtItsDeadlineAndIsCancelledUpstream) {
    auto plugin = load("skills:\n  - id: hang\n    timeout_ms: 300\n");
    ASSERT_TRUE(plugin) << last_error.message;
    const auto started = std::chrono::steady_clock::now();
    auto outcome = call(*plugin, "remote__hang", "{}");
    EXPECT_EQ(outcome.error_code, "UPSTREAM_TIMEOUT") << outcome.error_message;
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
    EXPECT_TRUE(server.saw_cancel(std::chrono::seconds(2)));
    EXPECT_EQ(call(*plugin, "remote__echo", R"({"message":"still"})").written, RawOutcome::Written::result);
}

TEST_F(ForeignHttpServerTest, AHungCallIsCancelledUpstreamWhenTheCallerCancels) {
    auto plugin = load();
    ASSERT_TRUE(plugin) << last_error.message;
    CallControl control;
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        control.cancelled = true;
    });
    auto outcome = call(*plugin, "remote__hang", "{}", &control);
    canceller.join();
    EXPECT_EQ(outcome.error_code, "UPSTREAM_CANCELLED") << outcome.error_message;
    EXPECT_TRUE(server.saw_cancel(std::chrono::seconds(2)));
}

TEST_F(ForeignHttpServerTest, AnEventOverTheLimitFailsThatCallNamingTheLimitAndTheSessionGoesOn) {
    auto plugin = load("limits: {max_message_bytes: 1048576}\n");
    ASSERT_TRUE(plugin) << last_error.message;
    auto huge = call(*plugin, "remote__huge", "{}");
    EXPECT_EQ(huge.error_code, "UPSTREAM_MESSAGE_TOO_LARGE");
    EXPECT_THAT(huge.error_message, HasSubstr("1048576"));
    EXPECT_EQ(call(*plugin, "remote__echo", R"({"message":"after"})").written, RawOutcome::Written::result);
    EXPECT_EQ(server.sessions_started(), 2) << "the same session serves the next call";
}

TEST_F(ForeignHttpServerTest, AStreamBrokenMidEventFailsTheCallWithoutResendingIt) {
    auto plugin = load();
    ASSERT_TRUE(plugin) << last_error.message;
    auto broken = call(*plugin, "remote__broken", "{}");
    EXPECT_EQ(broken.error_code, "PLUGIN_CRASHED") << broken.error_message;
    EXPECT_THAT(broken.error_message, HasSubstr("not resent"));
    EXPECT_EQ(server.tool_calls(), 1);
    RawOutcome again;
    for (int attempt = 0; attempt < 100; ++attempt) {  // until the restart's backoff has passed
        again = call(*plugin, "remote__echo", R"({"message":"next"})");
        if (again.error_code != "PLUGIN_RESTARTING") break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(again.written, RawOutcome::Written::result) << again.error_code << again.error_message;
    EXPECT_EQ(server.tool_calls(), 2);
}

TEST_F(ForeignHttpServerTest, AStreamThatEndsEarlyIsResumedWithLastEventIdNotResent) {
    auto plugin = load();
    ASSERT_TRUE(plugin) << last_error.message;
    auto resumed = call(*plugin, "remote__resumable", "{}");
    ASSERT_EQ(resumed.written, RawOutcome::Written::result) << resumed.error_code << resumed.error_message;
    EXPECT_EQ(testing::parse(resumed.result_json).at("message"), "resumed");
    EXPECT_EQ(server.tool_calls(), 1);
    bool resumed_with_id = false;
    for (const auto& request : server.requests())
        resumed_with_id |= request.method == "GET" && request.header("last-event-id") == "resume-1";
    EXPECT_TRUE(resumed_with_id);
}

TEST_F(ForeignHttpServerTest, ABatchBodyNoiseAndStrayAnswersAreSortedOut) {
    auto plugin = load();
    ASSERT_TRUE(plugin) << last_error.message;
    auto batch = call(*plugin, "remote__batch", "{}");
    ASSERT_EQ(batch.written, RawOutcome::Written::result) << batch.error_code << batch.error_message;
    EXPECT_EQ(testing::parse(batch.result_json).at("message"), "batched");
    auto garbled = call(*plugin, "remote__garbled", "{}");
    ASSERT_EQ(garbled.written, RawOutcome::Written::result) << garbled.error_code << garbled.error_message;
    EXPECT_EQ(testing::parse(garbled.result_json).at("message"), "after the noise");
}

TEST_F(ForeignHttpServerTest, AJsonBodyOverTheLimitFailsThatCallNamingTheLimit) {
    auto plugin = load("limits: {max_message_bytes: 1048576}\n");
    ASSERT_TRUE(plugin) << last_error.message;
    auto huge = call(*plugin, "remote__huge_json", "{}");
    EXPECT_EQ(huge.error_code, "UPSTREAM_MESSAGE_TOO_LARGE");
    EXPECT_THAT(huge.error_message, HasSubstr("1048576"));
    EXPECT_EQ(call(*plugin, "remote__echo", R"({"message":"after"})").written, RawOutcome::Written::result);
}

TEST_F(ForeignHttpServerTest, ABodyDeclaredPastTheStreamsBoundIsRefusedUnreadNamingTheLimit) {
    // 16 x 65536 bytes is the most one response may carry; the 2 MiB body says its length first.
    auto plugin = load("limits: {max_message_bytes: 65536}\n");
    ASSERT_TRUE(plugin) << last_error.message;
    auto huge = call(*plugin, "remote__huge_json", "{}");
    EXPECT_EQ(huge.error_code, "UPSTREAM_MESSAGE_TOO_LARGE") << huge.error_message;
    EXPECT_THAT(huge.error_message, HasSubstr("65536"));
    EXPECT_EQ(call(*plugin, "remote__echo", R"({"message":"after"})").written, RawOutcome::Written::result);
}

TEST_F(ForeignHttpServerTest, ARequestAcceptedWithoutAnAnswerIsAProtocolError) {
    auto plugin = load();
    ASSERT_TRUE(plugin) << last_error.message;
    auto accepted = call(*plugin, "remote__accepted", "{}");
    EXPECT_EQ(accepted.error_code, "UPSTREAM_PROTOCOL_ERROR");
    EXPECT_THAT(accepted.error_message, HasSubstr("202"));
}

TEST_F(ForeignHttpServerTest, AnUnreachableServerFailsToLoadSayingSo) {
    const std::string url = "http://127.0.0.1:" + std::to_string(llm::testing::closed_port()) + "/mcp";
    EXPECT_FALSE(load("", url));
    EXPECT_EQ(last_error.code, "UPSTREAM_CLOSED");
    EXPECT_THAT(last_error.message, HasSubstr("cannot reach it"));
    EXPECT_EQ(last_error.details.at("manifest").as_string(), (plugins / "remote.yaml").string());
}

TEST_F(ForeignHttpServerTest, AnEndpointThatIsNotMcpIsARefusalWithItsStatus) {
    llm::testing::LoopbackServer not_mcp([](const llm::testing::RecordedRequest&, llm::testing::Connection& c) {
        c.respond(403, "go away", "text/plain");
    });
    EXPECT_FALSE(load("", not_mcp.url() + "/mcp"));
    EXPECT_EQ(last_error.code, "UPSTREAM_ERROR");
    EXPECT_THAT(last_error.message, HasSubstr("HTTP 403"));
    EXPECT_THAT(last_error.message, HasSubstr("headers in its declaration"));
}

}  // namespace
}  // namespace skillhost::plugin
