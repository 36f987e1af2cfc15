// MCP over Streamable HTTP on `skillhost serve`'s /mcp: sessions, JSON and event-stream answers,
// list_changed on the server stream, elicitation for approvals, cancellation, and every refusal.
#include "daemon_process.hpp"
#include "support/child_process.hpp"
#include "support/subprocess.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
namespace json = boost::json;

const std::string kAccept = "application/json, text/event-stream";

struct McpClient {
    DaemonProcess& d;
    std::string user = "alice";
    std::string session;
    std::string bearer{};  // empty: the user's token from users.yaml

    RequestSpec spec(const json::value& body, bool with_session = true) const {
        RequestSpec s{"POST",
                      "/mcp",
                      json::serialize(body),
                      bearer.empty() ? DaemonProcess::token(user) : bearer,
                      {{"Accept", "application/json"}}};
        if (with_session && !session.empty()) s.headers.emplace_back("Mcp-Session-Id", session);
        return s;
    }
    HttpResult post(const json::value& body) const { return http_request(d.port(), spec(body)); }
    // A request answered as JSON.
    json::value request(const std::string& method, json::object params = {}, json::value id = 1) const {
        auto r = post(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
        EXPECT_EQ(r.status, 200) << r.body;
        return r.json();
    }
    void initialize(json::object capabilities = {}) {
        auto r = http_request(d.port(), spec(json::object{{"jsonrpc", "2.0"},
                                                          {"id", 0},
                                                          {"method", "initialize"},
                                                          {"params",
                                                           {{"protocolVersion", "2025-11-25"},
                                                            {"capabilities", capabilities},
                                                            {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}},
                                             false));
        ASSERT_EQ(r.status, 200) << r.body;
        ASSERT_TRUE(r.headers.count("mcp-session-id")) << r.body;
        session = r.headers["mcp-session-id"];
        EXPECT_EQ(r.json().at("result").at("protocolVersion").as_string(), "2025-11-25");
        auto ack = post(json::object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
        EXPECT_EQ(ack.status, 202);
    }
    // A request answered as an event stream.
    std::unique_ptr<SseStream> stream(const json::value& body) const {
        RequestSpec s = spec(body);
        s.headers = {{"Mcp-Session-Id", session}, {"Accept", kAccept}};
        return std::make_unique<SseStream>(d.port(), s);
    }
};

json::object call_message(const std::string& id, const std::string& tool, json::object arguments) {
    return json::object{{"jsonrpc", "2.0"},
                        {"id", id},
                        {"method", "tools/call"},
                        {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}};
}

// The session's GET stream, as real clients keep it open.
std::unique_ptr<SseStream> open_server_stream(DaemonProcess& d, const McpClient& c) {
    return std::make_unique<SseStream>(
        d.port(),
        RequestSpec{
            "GET", "/mcp", "", DaemonProcess::token(c.user), {{"Mcp-Session-Id", c.session}, {"Accept", kAccept}}});
}

// `count` sessions of alice, each with its GET stream open.
void open_listening_sessions(DaemonProcess& d, int count, std::vector<McpClient>& sessions,
                             std::vector<std::unique_ptr<SseStream>>& listening) {
    for (int i = 0; i < count; ++i) {
        sessions.push_back(McpClient{d, "alice", ""});
        sessions.back().initialize();
        listening.push_back(open_server_stream(d, sessions.back()));
        ASSERT_EQ(listening.back()->status(), 200);
    }
}

DaemonSetup setup_with(std::string policy = "") {
    DaemonSetup s;
    s.policy_yaml = std::move(policy);
    return s;
}

TEST(ServeMcp, ASessionListsAndCallsToolsOverJsonAndEventStreams) {
    DaemonProcess d(setup_with());
    d.start();
    McpClient c{d, "alice", ""};
    c.initialize();
    auto tools = c.request("tools/list");
    std::vector<std::string> names;
    for (const auto& t : tools.at("result").at("tools").as_array()) names.emplace_back(t.at("name").as_string());
    EXPECT_THAT(names, ::testing::IsSupersetOf({"add", "task_list", "fs_read"}));

    auto call = c.request("tools/call", {{"name", "add"}, {"arguments", {{"a", 19}, {"b", 23}}}}, 2);
    EXPECT_EQ(call.at("result").at("structuredContent").at("sum").to_number<int>(), 42);

    auto stream = c.stream(json::object{{"jsonrpc", "2.0"},
                                        {"id", "s1"},
                                        {"method", "tools/call"},
                                        {"params", {{"name", "add"}, {"arguments", {{"a", 1}, {"b", 2}}}}}});
    ASSERT_EQ(stream->status(), 200);
    auto answer = stream->next();
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->json().at("id").as_string(), "s1");
    EXPECT_EQ(answer->json().at("result").at("structuredContent").at("sum").to_number<int>(), 3);
    EXPECT_FALSE(stream->next(std::chrono::seconds(5)));  // the stream ends with its response

    auto unknown = c.request("tools/call", {{"name", "no_such_tool"}, {"arguments", json::object()}}, 3);
    EXPECT_EQ(unknown.at("error").at("code").to_number<int>(), -32602);
}

TEST(ServeMcp, RequestsWithoutAValidSessionTokenOriginOrHostAreRefused) {
    DaemonSetup setup = setup_with();
    setup.server_yaml = "  mcp_allowed_origins: [\"https://app.example\"]\n";
    DaemonProcess d(setup);
    d.start();
    McpClient c{d, "alice", ""};
    const json::object ping{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}};
    EXPECT_EQ(c.post(ping).status, 400);  // no session yet
    c.session = "mcp-doesnotexist";
    EXPECT_EQ(c.post(ping).status, 404);
    c.session.clear();
    c.initialize();
    EXPECT_EQ(c.post(ping).status, 200);

    McpClient bob{d, "owner", c.session};  // someone else's session
    EXPECT_EQ(bob.post(ping).status, 404);

    RequestSpec no_token = c.spec(ping);
    no_token.token.clear();
    EXPECT_EQ(http_request(d.port(), no_token).status, 401);

    RequestSpec evil = c.spec(ping);
    evil.headers.emplace_back("Origin", "https://evil.example");
    EXPECT_EQ(http_request(d.port(), evil).status, 403);
    RequestSpec local = c.spec(ping);
    local.headers.emplace_back("Origin", "http://localhost:3000");
    EXPECT_EQ(http_request(d.port(), local).status, 200);
    RequestSpec listed = c.spec(ping);
    listed.headers.emplace_back("Origin", "https://app.example");  // server.mcp_allowed_origins
    EXPECT_EQ(http_request(d.port(), listed).status, 200);

    RequestSpec rebound = c.spec(ping);
    rebound.headers.emplace_back("Host", "attacker.example:8787");
    EXPECT_EQ(http_request(d.port(), rebound).status, 403);

    RequestSpec old_version = c.spec(ping);
    old_version.headers.emplace_back("MCP-Protocol-Version", "2024-01-01");
    EXPECT_EQ(http_request(d.port(), old_version).status, 400);

    auto batch = c.post(json::array{ping, ping});
    EXPECT_EQ(batch.status, 400);
    EXPECT_EQ(batch.json().at("error").at("code").to_number<int>(), -32600);

    RequestSpec end{"DELETE", "/mcp", "", DaemonProcess::token("alice"), {{"Mcp-Session-Id", c.session}}};
    EXPECT_EQ(http_request(d.port(), end).status, 204);
    EXPECT_EQ(c.post(ping).status, 404);  // the session is gone
}

// A session that negotiated 2025-03-26 accepts batches (that version says servers MUST): the
// answers come back as one JSON array, or as one event carrying it; notifications alone get 202.
TEST(ServeMcp, ABatchIn20250326IsAnsweredAsOneArray) {
    DaemonProcess d(setup_with());
    d.start();
    McpClient c{d, "owner", ""};
    auto init = http_request(d.port(), c.spec(json::object{{"jsonrpc", "2.0"},
                                                           {"id", 0},
                                                           {"method", "initialize"},
                                                           {"params",
                                                            {{"protocolVersion", "2025-03-26"},
                                                             {"capabilities", json::object()},
                                                             {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}},
                                              false));
    ASSERT_EQ(init.status, 200) << init.body;
    c.session = init.headers["mcp-session-id"];
    const json::value initialized = json::object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};
    EXPECT_EQ(c.post(json::array{initialized}).status, 202);

    const json::value ping = json::object{{"jsonrpc", "2.0"}, {"id", "p"}, {"method", "ping"}};
    const json::value call = json::object{{"jsonrpc", "2.0"},
                                          {"id", 9},
                                          {"method", "tools/call"},
                                          {"params", {{"name", "add"}, {"arguments", {{"a", 1}, {"b", 2}}}}}};
    auto answer = c.post(json::array{ping, call});
    ASSERT_EQ(answer.status, 200) << answer.body;
    const json::value batch = answer.json();
    ASSERT_TRUE(batch.is_array()) << answer.body;
    ASSERT_EQ(batch.as_array().size(), 2u);
    for (const auto& m : batch.as_array()) {
        if (m.at("id").is_int64())
            EXPECT_EQ(m.at("result").at("structuredContent").at("sum").to_number<int>(), 3);
        else
            EXPECT_EQ(m.at("id").as_string(), "p");
    }

    auto stream = c.stream(json::array{ping});
    auto event = stream->next_named("message");
    ASSERT_TRUE(event) << stream->body_text();
    EXPECT_EQ(json::parse(event->data).as_array().at(0).at("id").as_string(), "p");
}

// Event streams can be resumed: each starts with a priming event (an id and retry, no data), and a
// client that lost a call's stream gets the call's answer with GET and Last-Event-ID.
TEST(ServeMcp, AClientThatLostACallsStreamResumesItWithLastEventId) {
    DaemonProcess d(setup_with());
    d.start();
    McpClient c{d, "owner", ""};
    c.initialize();
    std::string primed;
    {
        auto stream = c.stream(json::object{{"jsonrpc", "2.0"},
                                            {"id", 5},
                                            {"method", "tools/call"},
                                            {"params", {{"name", "sleep"}, {"arguments", {{"ms", 300}}}}}});
        while (stream->last_id().empty() && !stream->ended()) stream->next(std::chrono::milliseconds(50));
        primed = stream->last_id();
        EXPECT_FALSE(stream->retry().empty());
    }  // the connection closes before the answer
    ASSERT_FALSE(primed.empty());
    auto resume = [&](const std::string& last_id) {
        RequestSpec s{"GET",
                      "/mcp",
                      "",
                      DaemonProcess::token("owner"),
                      {{"Mcp-Session-Id", c.session}, {"Accept", kAccept}, {"Last-Event-ID", last_id}}};
        return std::make_unique<SseStream>(d.port(), s);
    };
    auto resumed = resume(primed);
    ASSERT_EQ(resumed->status(), 200) << resumed->body_text();
    auto answer = resumed->next_named("message");
    ASSERT_TRUE(answer) << resumed->body_text();
    EXPECT_EQ(answer->json().at("id").to_number<int>(), 5);
    EXPECT_EQ(answer->json().at("result").at("structuredContent").at("slept_ms").to_number<int>(), 300);
    const std::string answered = resumed->last_id();
    EXPECT_FALSE(resumed->next());  // the call's stream ends after its answer
    // Resuming after the answer: nothing more, the stream ends.
    auto after = resume(answered);
    EXPECT_EQ(after->status(), 200);
    EXPECT_FALSE(after->next());

    EXPECT_EQ(resume("not-an-id")->status(), 400);
    auto gone = resume("999-0");
    EXPECT_EQ(gone->status(), 410);
    EXPECT_THAT(gone->body_text(), HasSubstr("MCP_EVENTS_GONE"));
}

TEST(ServeMcp, TheServerStreamAnnouncesToolsInstalledDuringTheSession) {
    DaemonSetup setup;
    setup.echo_fixture = false;
    DaemonProcess d(setup);
    d.start();
    McpClient c{d, "alice", ""};
    c.initialize();
    SseStream events(d.port(),
                     RequestSpec{"GET", "/mcp", "", DaemonProcess::token("alice"), {{"Mcp-Session-Id", c.session}}});
    ASSERT_EQ(events.status(), 200);
    const auto source = std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo";
    const auto staging = d.home() / "staging";
    std::filesystem::create_directories(staging);
    for (const auto& e : std::filesystem::directory_iterator(source))
        std::filesystem::copy_file(e.path(), staging / e.path().filename());
    std::filesystem::rename(staging / "libecho.so", d.plugins_dir() / "libecho.so");
    std::filesystem::rename(staging / "echo.yaml", d.plugins_dir() / "echo.yaml");
    auto changed = events.next(std::chrono::seconds(20));
    ASSERT_TRUE(changed) << d.log();
    EXPECT_EQ(changed->json().at("method").as_string(), "notifications/tools/list_changed");
    auto tools = c.request("tools/list");
    EXPECT_THAT(json::serialize(tools), HasSubstr("\"add\""));
}

TEST(ServeMcp, ApprovalIsAskedThroughElicitationOnTheCallsStream) {
    DaemonProcess d(setup_with("global:\n  ask: [\"add\"]\n"));
    d.start();
    McpClient c{d, "alice", ""};
    c.initialize({{"elicitation", json::object()}});
    // With the server stream open too, the approval question still comes on the call's own stream.
    SseStream server_stream(
        d.port(), RequestSpec{"GET", "/mcp", "", DaemonProcess::token("alice"), {{"Mcp-Session-Id", c.session}}});
    ASSERT_EQ(server_stream.status(), 200);
    for (const std::string decision : {"approve", "reject"}) {
        auto stream = c.stream(json::object{{"jsonrpc", "2.0"},
                                            {"id", "call-" + decision},
                                            {"method", "tools/call"},
                                            {"params", {{"name", "add"}, {"arguments", {{"a", 2}, {"b", 3}}}}}});
        ASSERT_EQ(stream->status(), 200);
        auto ask = stream->next();
        ASSERT_TRUE(ask) << d.log();
        ASSERT_EQ(ask->json().at("method").as_string(), "elicitation/create") << ask->data;
        auto reply = c.post(json::object{
            {"jsonrpc", "2.0"},
            {"id", ask->json().at("id")},
            {"result", {{"action", "accept"}, {"content", {{"decision", decision}, {"reason", "test"}}}}}});
        EXPECT_EQ(reply.status, 202);
        auto result = stream->next();
        ASSERT_TRUE(result);
        EXPECT_EQ(result->json().at("id").as_string(), "call-" + decision);
        if (decision == "approve") {
            EXPECT_EQ(result->json().at("result").at("structuredContent").at("sum").to_number<int>(), 5)
                << result->data;
        } else {
            EXPECT_TRUE(result->json().at("result").at("isError").as_bool()) << result->data;
        }
    }
}

TEST(ServeMcp, ASessionWhoseTokenMayNotApproveNeverAsksItsClientToApprove) {
    DaemonProcess d(setup_with("global:\n  ask: [\"add\"]\n"));
    d.start();
    McpClient c{d, "alice", "", d.create_token("alice", "call")};
    c.initialize({{"elicitation", json::object()}});
    auto stream = c.stream(json::object{{"jsonrpc", "2.0"},
                                        {"id", "agent-call"},
                                        {"method", "tools/call"},
                                        {"params", {{"name", "add"}, {"arguments", {{"a", 2}, {"b", 3}}}}}});
    ASSERT_EQ(stream->status(), 200);
    auto first = stream->next();
    ASSERT_TRUE(first) << d.log();
    // The answer itself, not an elicitation/create the agent could answer for the approver.
    ASSERT_FALSE(first->json().as_object().contains("method")) << first->data;
    EXPECT_EQ(first->json().at("id").as_string(), "agent-call");
    EXPECT_TRUE(first->json().at("result").at("isError").as_bool()) << first->data;
    EXPECT_THAT(first->data, HasSubstr("APPROVAL_REQUIRED"));
    auto pending = d.get("/v1/approvals?state=pending", "alice");
    ASSERT_EQ(pending.status, 200);
    EXPECT_EQ(pending.json().at("approvals").as_array().size(), 1u) << pending.body;
}

TEST(ServeMcp, AModeSwitchDuringASessionAppliesToItsNextCallAndListing) {
    DaemonProcess d(setup_with());
    d.start();
    McpClient c{d, "alice", ""};
    c.initialize();
    auto names = [&] {
        std::vector<std::string> out;
        const json::value listed = c.request("tools/list");
        for (const auto& t : listed.at("result").at("tools").as_array()) out.emplace_back(t.at("name").as_string());
        return out;
    };
    EXPECT_THAT(names(), ::testing::Contains("task_create"));
    auto switched = d.cli({"mode", "set", "emulation", "--user", "alice"});
    ASSERT_EQ(switched.exit_code, 0) << switched.err;
    EXPECT_THAT(names(), ::testing::Not(::testing::Contains("task_create")));
    auto call = c.request("tools/call", {{"name", "task_create"}, {"arguments", {{"title", "sneak in"}}}}, 7);
    EXPECT_TRUE(call.at("result").at("isError").as_bool()) << call;
    EXPECT_THAT(json::serialize(call), HasSubstr("MODE_FORBIDS"));
    auto tasks = d.post("/v1/skills/task_list/call", "{}", "alice");
    EXPECT_THAT(tasks.body, ::testing::Not(HasSubstr("sneak in")));
}

TEST(ServeMcp, ALongArgumentIsRefusedAndTheDaemonStaysHealthy) {
    DaemonProcess d(setup_with());
    d.start();
    McpClient c{d, "alice", ""};
    c.initialize();
    const std::string title = "\"" + std::string(100'000, 'a');
    auto call = c.post(json::object{{"jsonrpc", "2.0"},
                                    {"id", 9},
                                    {"method", "tools/call"},
                                    {"params", {{"name", "task_create"}, {"arguments", {{"title", title}}}}}});
    EXPECT_NE(call.status, 0) << "the daemon closed the connection";
    EXPECT_EQ(d.get("/healthz", "").status, 200);
    EXPECT_EQ(c.request("ping").at("result"), json::object());
}

TEST(ServeMcp, CancellingACallStopsItAndEndsItsStream) {
    DaemonProcess d(setup_with());
    d.start();
    McpClient c{d, "alice", ""};
    c.initialize();
    // A skill that would answer after 20 s: an answer on the stream means the cancel did not work.
    constexpr auto skill_time = std::chrono::seconds(20);
    const auto started = std::chrono::steady_clock::now();
    auto stream = c.stream(json::object{{"jsonrpc", "2.0"},
                                        {"id", "slow"},
                                        {"method", "tools/call"},
                                        {"params", {{"name", "sleep"}, {"arguments", {{"ms", 20000}}}}}});
    ASSERT_EQ(stream->status(), 200);  // the endpoint registers the id before it opens the stream
    auto same_id = c.post(json::object{{"jsonrpc", "2.0"}, {"id", "slow"}, {"method", "ping"}});
    EXPECT_EQ(same_id.status, 400) << same_id.body;  // its id is still in flight
    auto cancel = c.post(json::object{{"jsonrpc", "2.0"},
                                      {"method", "notifications/cancelled"},
                                      {"params", {{"requestId", "slow"}, {"reason", "stop"}}}});
    EXPECT_EQ(cancel.status, 202);
    // Waits past the moment the uncancelled skill would have answered: the stream ends with no response.
    EXPECT_FALSE(stream->next(skill_time + std::chrono::seconds(10)));
    EXPECT_TRUE(stream->ended());
    EXPECT_LT(std::chrono::steady_clock::now() - started, skill_time) << "the skill ran to its end";
    EXPECT_EQ(c.request("ping").at("result"), json::object());
}

// A skill's log lines and its sampling request travel on its call's event stream (not the server
// stream), and its content items come back both from /mcp and from the HTTP API.
TEST(ServeMcp, ToolLogsSamplingAndContentTravelWithTheirCall) {
    DaemonProcess d(setup_with());
    const std::filesystem::path rich = std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "rich";
    for (const auto& entry : std::filesystem::directory_iterator(rich))
        if (entry.is_regular_file())
            std::filesystem::copy_file(entry.path(), d.plugins_dir() / entry.path().filename());
    d.start();
    McpClient c{d, "alice", ""};
    c.initialize({{"sampling", json::object()}});
    SseStream server_stream(
        d.port(), RequestSpec{"GET", "/mcp", "", DaemonProcess::token("alice"), {{"Mcp-Session-Id", c.session}}});
    ASSERT_EQ(server_stream.status(), 200);
    c.request("logging/setLevel", {{"level", "info"}}, 7);

    auto logged = c.stream(json::object{{"jsonrpc", "2.0"},
                                        {"id", "log-1"},
                                        {"method", "tools/call"},
                                        {"params", {{"name", "rich_log"}, {"arguments", json::object()}}}});
    ASSERT_EQ(logged->status(), 200);
    auto first = logged->next();
    ASSERT_TRUE(first) << d.log();
    EXPECT_EQ(first->json().at("method").as_string(), "notifications/message") << first->data;
    EXPECT_EQ(first->json().at("params").at("logger").as_string(), "rich");
    EXPECT_EQ(first->json().at("params").at("data").as_string(), "starting the work");
    bool answered = false;
    while (auto event = logged->next()) {
        if (event->json().as_object().contains("id")) {
            EXPECT_EQ(event->json().at("id").as_string(), "log-1");
            answered = true;
            break;
        }
    }
    EXPECT_TRUE(answered);

    auto sampled = c.stream(json::object{{"jsonrpc", "2.0"},
                                         {"id", "sample-1"},
                                         {"method", "tools/call"},
                                         {"params", {{"name", "rich_sample"}, {"arguments", {{"prompt", "hi"}}}}}});
    auto ask = sampled->next();
    ASSERT_TRUE(ask) << d.log();
    ASSERT_EQ(ask->json().at("method").as_string(), "sampling/createMessage") << ask->data;
    auto reply = c.post(json::object{
        {"jsonrpc", "2.0"},
        {"id", ask->json().at("id")},
        {"result", {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "hello"}}}, {"model", "m"}}}});
    EXPECT_EQ(reply.status, 202);
    auto result = sampled->next();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->json().at("result").at("structuredContent").at("backend").as_string(), "mcp-client")
        << result->data;
    EXPECT_EQ(result->json().at("result").at("structuredContent").at("content").as_string(), "hello");

    auto content = c.request("tools/call", {{"name", "rich_content"}, {"arguments", json::object()}}, 8);
    EXPECT_EQ(content.at("result").at("content").as_array().size(), 5u) << json::serialize(content);
    auto api = d.post("/v1/skills/rich_content/call", "{}", "alice");
    ASSERT_EQ(api.status, 200) << api.body;
    const json::value body = api.json();
    const auto& items = body.at("content").as_array();
    ASSERT_EQ(items.size(), 5u);
    EXPECT_EQ(items[1].at("type").as_string(), "image");
}

// The official TypeScript SDK client (npm @modelcontextprotocol/sdk) over Streamable HTTP against
// the real daemon: connect with a token, list, call, approve through elicitation, see list_changed.
TEST(ServeMcp, TheOfficialTypeScriptSdkClientWorksOverStreamableHttp) {
    DaemonProcess d(setup_with("global:\n  ask: [\"add\"]\n"));
    d.start();
    auto r =
        run_process({"/bin/sh", SKILLHOST_MCP_SDK_SCRIPT, SKILLHOST_MCP_HTTP_SDK_CACHE, SKILLHOST_MCP_HTTP_SDK_CLIENT,
                     "http://127.0.0.1:" + std::to_string(d.port()) + "/mcp", DaemonProcess::token("alice"),
                     d.plugins_dir().string(), std::string(SKILLHOST_TEST_FIXTURES_BINARY_DIR) + "/plain_c"},
                    {}, {}, 100000);  // below ctest's 120 s, so a hang reports its output
    if (r.exit_code == 77) GTEST_SKIP() << "node or npm is not installed (outside CI only): " << r.err;
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err << "\n" << d.log();
    EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out << r.err;
}

// server.max_streams caps open event streams: one more is refused with 503 before the session
// sees the request, answers as JSON still work, and a closed stream frees its place.
TEST(ServeMcp, EventStreamsBeyondMaxStreamsAre503UntilOneCloses) {
    DaemonSetup setup = setup_with();
    setup.server_yaml = "  max_streams: 1\n";
    DaemonProcess d(setup);
    d.start();
    McpClient c{d, "alice", ""};
    c.initialize();
    const json::object add{{"jsonrpc", "2.0"},
                           {"id", "s"},
                           {"method", "tools/call"},
                           {"params", {{"name", "add"}, {"arguments", {{"a", 1}, {"b", 2}}}}}};
    auto server_stream = std::make_unique<SseStream>(
        d.port(), RequestSpec{"GET",
                              "/mcp",
                              "",
                              DaemonProcess::token("alice"),
                              {{"Mcp-Session-Id", c.session}, {"Accept", "text/event-stream"}}});
    ASSERT_EQ(server_stream->status(), 200) << server_stream->body_text();

    auto refused = c.stream(add);
    EXPECT_EQ(refused->status(), 503) << refused->body_text();
    EXPECT_THAT(refused->body_text(), HasSubstr("TOO_MANY_STREAMS"));
    EXPECT_EQ(c.request("tools/call", {{"name", "add"}, {"arguments", {{"a", 2}, {"b", 2}}}}, 7)
                  .at("result")
                  .at("structuredContent")
                  .at("sum")
                  .to_number<int>(),
              4);

    // The client goes away; the server notices when its next write fails (a keep-alive comment is
    // written after 15 s of quiet) and frees the slot.
    server_stream.reset();
    int status = 0;
    for (int attempt = 0; attempt < 3000 && status != 200; ++attempt) {
        auto again = c.stream(json::object{{"jsonrpc", "2.0"},
                                           {"id", "s" + std::to_string(attempt)},
                                           {"method", "tools/call"},
                                           {"params", {{"name", "add"}, {"arguments", {{"a", 1}, {"b", 2}}}}}});
        status = again->status();
        if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(status, 200) << "the closed stream's slot was never freed";
}

// Each user may hold server.mcp_sessions_per_user sessions; one more closes that user's least
// recently used idle session (other users are not affected) instead of refusing the client.
TEST(ServeMcp, AtTheSessionLimitTheLeastRecentlyUsedIdleSessionMakesRoom) {
    DaemonSetup setup = setup_with();
    setup.server_yaml = "  mcp_sessions_per_user: 3\n";
    DaemonProcess d(setup);
    d.start();
    std::vector<McpClient> sessions;
    for (int i = 0; i < 3; ++i) {
        sessions.push_back(McpClient{d, "alice", ""});
        sessions.back().initialize();
        ASSERT_FALSE(sessions.back().session.empty()) << "session " << i;
    }
    McpClient owner{d, "owner", ""};
    owner.initialize();
    // Using the first session makes the second the least recently used.
    sessions[0].request("tools/list", {}, 5);

    McpClient one_more{d, "alice", ""};
    one_more.initialize();
    ASSERT_FALSE(one_more.session.empty());

    const auto status_of = [&](const McpClient& c) {
        return c.post(json::object{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "tools/list"}}).status;
    };
    EXPECT_EQ(status_of(sessions[1]), 404) << "the least recently used session was not the one closed";
    EXPECT_EQ(status_of(sessions[0]), 200);
    EXPECT_EQ(status_of(sessions[2]), 200);
    EXPECT_EQ(status_of(one_more), 200);
    EXPECT_EQ(status_of(owner), 200);
}

// When every session at the limit keeps its server stream open, the least recently used one of
// them makes room (its stream ends) instead of the new session being refused.
TEST(ServeMcp, AtTheSessionLimitAListeningSessionMakesRoomWhenNoneIsIdle) {
    DaemonSetup setup = setup_with();
    setup.server_yaml = "  mcp_sessions_per_user: 2\n";
    DaemonProcess d(setup);
    d.start();
    std::vector<McpClient> sessions;
    std::vector<std::unique_ptr<SseStream>> listening;
    open_listening_sessions(d, 2, sessions, listening);
    ASSERT_EQ(listening.size(), 2u);
    sessions[1].request("tools/list", {}, 5);  // the first becomes the least recently used
    McpClient one_more{d, "alice", ""};
    one_more.initialize();
    ASSERT_FALSE(one_more.session.empty());
    EXPECT_FALSE(listening[0]->next());  // its server stream ended
    EXPECT_TRUE(listening[0]->ended());
    const auto status_of = [&](const McpClient& c) {
        return c.post(json::object{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "tools/list"}}).status;
    };
    EXPECT_EQ(status_of(sessions[0]), 404);
    EXPECT_EQ(status_of(sessions[1]), 200);
    EXPECT_EQ(status_of(one_more), 200);
}

TEST(ServeMcp, SessionsUnusedForTheIdleExpiryAreClosed) {
    DaemonSetup setup = setup_with();
    setup.server_yaml = "  mcp_idle_expiry_ms: 1000\n";
    DaemonProcess d(setup);
    d.start();
    McpClient idle{d, "alice", ""};
    idle.initialize();
    McpClient busy{d, "alice", ""};
    busy.initialize();
    const auto list = [](const McpClient& c) {
        return c.post(json::object{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "tools/list"}});
    };
    // `busy` is used every 200 ms; `idle` not at all, until well past the expiry.
    for (int i = 0; i < 10; ++i) {
        EXPECT_EQ(list(busy).status, 200);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    auto expired = list(idle);
    EXPECT_EQ(expired.status, 404) << expired.body;
    EXPECT_EQ(expired.error_code(), "MCP_SESSION_NOT_FOUND");
    EXPECT_EQ(list(busy).status, 200);
}

// An open server stream is use: a session only listening there outlives the idle expiry, also
// while other sessions come and go (each initialize clears expired sessions away).
TEST(ServeMcp, ASessionOnlyListeningOutlivesTheIdleExpiry) {
    DaemonSetup setup = setup_with();
    setup.server_yaml = "  mcp_idle_expiry_ms: 1000\n";
    DaemonProcess d(setup);
    d.start();
    McpClient listener{d, "alice", ""};
    listener.initialize();
    SseStream listening(d.port(), RequestSpec{"GET",
                                              "/mcp",
                                              "",
                                              DaemonProcess::token("alice"),
                                              {{"Mcp-Session-Id", listener.session}, {"Accept", kAccept}}});
    ASSERT_EQ(listening.status(), 200);
    for (int i = 0; i < 6; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        McpClient passing{d, "owner", ""};
        passing.initialize();
    }
    auto listed = listener.post(json::object{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "tools/list"}});
    EXPECT_EQ(listed.status, 200) << listed.body;
}

// How many memories tagged `tag` the user has (memory_recent, answered as JSON).
std::size_t memories_tagged(const McpClient& c, const std::string& tag) {
    auto listed = c.request("tools/call", {{"name", "memory_recent"}, {"arguments", {{"tag", tag}, {"limit", 200}}}},
                            json::string("count-" + tag));
    return listed.at("result").at("structuredContent").at("memories").as_array().size();
}

struct CallOutcomes {
    std::mutex mutex;
    int answered = 0;  // 200 with the call's result
    int refused = 0;   // 429 TOO_MANY_STREAMS with Retry-After
    std::vector<std::string> unexpected;
};

// Sends `count` memory_capture calls at once, each answered as an event stream, and sorts the answers.
void capture_in_parallel(const McpClient& c, const std::string& tag, const std::string& round, int count,
                         CallOutcomes& outcomes) {
    std::vector<std::thread> calls;
    for (int i = 0; i < count; ++i) {
        calls.emplace_back([&, i] {
            const std::string id = round + "-" + std::to_string(i);
            auto stream =
                c.stream(call_message(id, "memory_capture", {{"text", "note " + id}, {"tags", json::array{tag}}}));
            std::string problem;
            bool answered = false;
            bool refused = false;
            if (stream->status() == 200) {
                auto result = stream->next(std::chrono::seconds(60));
                answered = result && result->json().as_object().contains("result") &&
                           result->json().at("result").at("isError") == json::value(false);
                if (!answered) problem = id + ": no result: " + (result ? result->data : "(stream ended)");
            } else if (stream->status() == 429) {
                refused = stream->body_text().find("TOO_MANY_STREAMS") != std::string::npos &&
                          stream->headers().count("retry-after") == 1;
                if (!refused) problem = id + ": 429 without TOO_MANY_STREAMS or Retry-After: " + stream->body_text();
            } else {
                problem = id + ": status " + std::to_string(stream->status()) + ": " + stream->body_text();
            }
            std::lock_guard lock(outcomes.mutex);
            outcomes.answered += answered ? 1 : 0;
            outcomes.refused += refused ? 1 : 0;
            if (!problem.empty()) outcomes.unexpected.push_back(problem);
        });
    }
    for (auto& call : calls) call.join();
}

// Admission is one decision: a call refused for want of a stream never runs, however the calls
// race. Counted as a user would: memories stored against calls answered.
TEST(ServeMcp, ACallRefusedForWantOfAStreamNeverRuns) {
    DaemonSetup setup = setup_with("global:\n  ask: [\"add\"]\n");
    setup.server_yaml = "  max_call_streams_per_user: 3\n";
    DaemonProcess d(setup);
    d.start();
    McpClient c{d, "owner", ""};
    c.initialize({{"elicitation", json::object()}});
    auto listening = open_server_stream(d, c);
    ASSERT_EQ(listening->status(), 200);

    // Three calls wait for their approval, each holding a stream: every further streamed call is refused.
    std::vector<std::unique_ptr<SseStream>> held;
    for (int i = 0; i < 3; ++i) {
        held.push_back(c.stream(call_message("held-" + std::to_string(i), "add", {{"a", i}, {"b", 1}})));
        ASSERT_EQ(held.back()->status(), 200) << held.back()->body_text();
        auto ask = held.back()->next();
        ASSERT_TRUE(ask) << d.log();
        ASSERT_EQ(ask->json().at("method").as_string(), "elicitation/create") << ask->data;
    }
    CallOutcomes blocked;
    capture_in_parallel(c, "blocked", "blocked", 10, blocked);
    EXPECT_THAT(blocked.unexpected, ::testing::IsEmpty());
    EXPECT_EQ(blocked.refused, 10);
    EXPECT_EQ(memories_tagged(c, "blocked"), 0u) << "a call answered 429 ran";
    // Answered as JSON, a call needs no stream.
    EXPECT_EQ(c.request("tools/call", {{"name", "memory_capture"}, {"arguments", {{"text", "as json"}}}}, "json")
                  .at("result")
                  .at("structuredContent")
                  .at("memory")
                  .at("text")
                  .as_string(),
              "as json");
    for (int i = 0; i < 3; ++i) {
        auto cancel = c.post(json::object{{"jsonrpc", "2.0"},
                                          {"method", "notifications/cancelled"},
                                          {"params", {{"requestId", "held-" + std::to_string(i)}}}});
        EXPECT_EQ(cancel.status, 202);
        auto& stream = *held[static_cast<std::size_t>(i)];
        while (auto event = stream.next()) EXPECT_FALSE(event->json().as_object().contains("result")) << event->data;
        EXPECT_TRUE(stream.ended());  // with no response
    }

    // Racing: rounds of 10 calls at once against 3 places. Every stored memory is a call answered.
    CallOutcomes raced;
    for (int round = 0; round < 6; ++round) capture_in_parallel(c, "raced", "round" + std::to_string(round), 10, raced);
    EXPECT_THAT(raced.unexpected, ::testing::IsEmpty());
    EXPECT_EQ(raced.answered + raced.refused, 60);
    EXPECT_GT(raced.answered, 0);
    const std::size_t stored = memories_tagged(c, "raced");
    EXPECT_EQ(stored, static_cast<std::size_t>(raced.answered)) << raced.refused << " calls were refused";
    std::cout << "raced: " << raced.answered << " answered, " << raced.refused << " refused (429), " << stored
              << " memories stored\n";
}

// With the default limits, a client that keeps its GET stream open and accepts event streams (as
// every SDK does) has 10 calls in flight at once: the GET stream's limit does not bound calls.
TEST(ServeMcp, TenParallelCallsOfOneSessionAllSucceedWithTheDefaultLimits) {
    DaemonProcess d(setup_with());
    d.start();
    McpClient c{d, "owner", ""};
    c.initialize();
    auto listening = open_server_stream(d, c);
    ASSERT_EQ(listening->status(), 200);
    CallOutcomes outcomes;
    capture_in_parallel(c, "ten", "ten", 10, outcomes);
    EXPECT_THAT(outcomes.unexpected, ::testing::IsEmpty());
    EXPECT_EQ(outcomes.answered, 10);
    EXPECT_EQ(memories_tagged(c, "ten"), 10u);
}

// GET streams abandoned by idle sessions do not lock their user out: at server.max_streams_per_user
// the least recently used idle session's GET stream ends to make room (the session goes on); when
// no session is idle, the GET is 429 with Retry-After.
TEST(ServeMcp, AtTheStreamLimitTheLeastRecentlyUsedIdleGetStreamMakesRoom) {
    DaemonSetup setup = setup_with();
    setup.server_yaml = "  max_streams_per_user: 2\n";
    DaemonProcess d(setup);
    d.start();
    std::vector<McpClient> sessions;
    std::vector<std::unique_ptr<SseStream>> listening;
    open_listening_sessions(d, 2, sessions, listening);
    ASSERT_EQ(listening.size(), 2u);
    sessions[0].request("tools/list", {}, 5);  // the second becomes the least recently used
    McpClient third{d, "alice", ""};
    third.initialize();
    auto third_stream = open_server_stream(d, third);
    EXPECT_EQ(third_stream->status(), 200) << third_stream->body_text();
    EXPECT_FALSE(listening[1]->next());  // the least recently used session's GET stream ended
    EXPECT_TRUE(listening[1]->ended());
    // ... and only its stream: the session still answers.
    EXPECT_EQ(sessions[1].request("ping", {}, 6).at("result"), json::object());

    // No idle session left (each has a call in flight): the next GET stream is refused.
    std::vector<std::unique_ptr<SseStream>> busy;
    for (McpClient* c : {&sessions[0], &third}) {
        busy.push_back(c->stream(call_message("busy", "sleep", {{"ms", 20000}})));
        ASSERT_EQ(busy.back()->status(), 200);
    }
    auto refused = open_server_stream(d, sessions[1]);
    EXPECT_EQ(refused->status(), 429) << refused->body_text();
    EXPECT_THAT(refused->body_text(), HasSubstr("TOO_MANY_STREAMS"));
    EXPECT_EQ(refused->headers().count("retry-after"), 1u);
    for (McpClient* c : {&sessions[0], &third})
        c->post(json::object{
            {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", "busy"}}}});
}

// A daemon restarted keeps its MCP sessions (SQLite and PostgreSQL): the client goes on with the
// same Mcp-Session-Id, its negotiated version and capabilities intact.
TEST(ServeMcp, SessionsSurviveADaemonRestart) {
    DaemonProcess d(setup_with("global:\n  ask: [\"add\"]\n"));
    d.start();
    McpClient c{d, "alice", ""};
    c.initialize({{"elicitation", json::object()}});
    auto pinged = c.stream(json::object{{"jsonrpc", "2.0"}, {"id", "before"}, {"method", "ping"}});
    ASSERT_TRUE(pinged->next());
    const std::string earlier_event = pinged->last_id();
    ASSERT_FALSE(earlier_event.empty());
    EXPECT_EQ(d.stop(), 0);
    d.start();
    auto tools = c.post(json::object{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}});
    ASSERT_EQ(tools.status, 200) << tools.body;
    // A client reconnecting its GET stream with an id from before the restart gets a new server
    // stream (those events went with the old daemon), not 410.
    SseStream reconnected(d.port(), RequestSpec{"GET",
                                                "/mcp",
                                                "",
                                                DaemonProcess::token("alice"),
                                                {{"Mcp-Session-Id", c.session},
                                                 {"Accept", "text/event-stream"},
                                                 {"Last-Event-ID", earlier_event}}});
    EXPECT_EQ(reconnected.status(), 200) << reconnected.body_text();
    // The client's elicitation capability came back with the session: approval is asked of it.
    auto stream = c.stream(call_message("after-restart", "add", {{"a", 2}, {"b", 3}}));
    ASSERT_EQ(stream->status(), 200);
    auto ask = stream->next();
    ASSERT_TRUE(ask) << d.log();
    ASSERT_EQ(ask->json().at("method").as_string(), "elicitation/create") << ask->data;
    c.post(json::object{{"jsonrpc", "2.0"},
                        {"id", ask->json().at("id")},
                        {"result", {{"action", "accept"}, {"content", {{"decision", "approve"}}}}}});
    auto result = stream->next();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->json().at("result").at("structuredContent").at("sum").to_number<int>(), 5) << result->data;
    // A session ended with DELETE stays ended across a restart.
    auto ended = http_request(
        d.port(), RequestSpec{"DELETE", "/mcp", "", DaemonProcess::token("alice"), {{"Mcp-Session-Id", c.session}}});
    EXPECT_EQ(ended.status, 204);
    EXPECT_EQ(d.stop(), 0);
    d.start();
    EXPECT_EQ(c.post(json::object{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}}).status, 404);
}

// Priming events (an id, empty data) go only to clients of 2025-11-25 and later, as the official
// SDK's server sends them, and are not `message` events: clients parse those as JSON-RPC.
TEST(ServeMcp, OnlyClientsOf20251125GetAPrimingEvent) {
    DaemonProcess d(setup_with());
    d.start();
    for (const std::string version : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
        auto init = http_request(
            d.port(), RequestSpec{"POST",
                                  "/mcp",
                                  json::serialize(json::object{{"jsonrpc", "2.0"},
                                                               {"id", 0},
                                                               {"method", "initialize"},
                                                               {"params",
                                                                {{"protocolVersion", version},
                                                                 {"capabilities", json::object()},
                                                                 {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}),
                                  DaemonProcess::token("alice"),
                                  {{"Accept", kAccept}}});
        ASSERT_EQ(init.status, 200) << init.body;
        RequestSpec call{"POST",
                         "/mcp",
                         json::serialize(call_message("c", "add", {{"a", 1}, {"b", 1}})),
                         DaemonProcess::token("alice"),
                         {{"Accept", kAccept}, {"Mcp-Session-Id", init.headers["mcp-session-id"]}}};
        if (version != "2025-11-25") call.headers.emplace_back("MCP-Protocol-Version", version);
        auto r = http_request(d.port(), call);
        ASSERT_EQ(r.status, 200) << r.body;
        // Named `priming`, so clients that parse every `message` event as JSON-RPC leave it alone.
        const bool primed = r.body.rfind("event: priming\nid: ", 0) == 0;
        EXPECT_EQ(primed, version == "2025-11-25") << version << ":\n" << r.body;
        EXPECT_EQ(r.body.find("event: message\nid: 1-0\n"), std::string::npos) << r.body;
        EXPECT_THAT(r.body, HasSubstr("\"result\""));
    }
}

// The Vercel AI SDK's MCP client (npm @ai-sdk/mcp, pinned), a second client not written here, against
// the real daemon: calls at once, an approval through elicitation, errors, prompts, resources, and a
// daemon restart in the middle of its session, which it goes on with.
TEST(ServeMcp, TheAiSdkMcpClientWorksOverStreamableHttpAcrossARestart) {
    DaemonProcess d(setup_with("global:\n  ask: [\"add\"]\n"));
    d.start();
    const std::string tag = "aisdk";
    ChildProcess client({"/bin/sh", SKILLHOST_MCP_SDK_SCRIPT, SKILLHOST_MCP_AI_SDK_CACHE, SKILLHOST_MCP_AI_SDK_CLIENT,
                         "http://127.0.0.1:" + std::to_string(d.port()) + "/mcp", DaemonProcess::token("owner"), tag});
    auto asked = client.wait_for_line("restart now", std::chrono::seconds(100));
    if (!asked) {
        const int code = client.wait(std::chrono::seconds(5));
        if (code == 77) GTEST_SKIP() << "node or npm is not installed (outside CI only): " << client.stderr_text();
        FAIL() << "the client did not get to the restart: " << client.stderr_text() << "\n" << d.log();
    }
    EXPECT_EQ(d.restart_on_same_port(), 0);
    client.write("restarted\n");
    auto done = client.wait_for_line("all checks passed", std::chrono::seconds(60));
    EXPECT_TRUE(done) << client.stderr_text() << "\n" << d.log();
    EXPECT_EQ(client.wait(std::chrono::seconds(10)), 0) << client.stderr_text();
    McpClient c{d, "owner", ""};
    c.initialize();
    EXPECT_EQ(memories_tagged(c, tag), 20u);  // 10 calls before the restart and 10 after, each once
}

}  // namespace
}  // namespace skillhost::testing
