// McpSession in-process: real fixture plugins loaded into a LiveCatalog, the CLI's own runtime
// (users, policy, approval queue, audit, call pipeline), messages in and out as JSON text.
#include "mcp_fixture_home.hpp"
#include "app/host_parts.hpp"

#include "app/plugin_storage_service.hpp"
#include "app/storage_schema.hpp"
#include "cli/cli_context.hpp"
#include "mcp/list_change_watch.hpp"
#include "mcp/mcp_session.hpp"
#include "mcp/tool_result.hpp"
#include "decisions/approval_queue.hpp"
#include "reload/watched_catalog.hpp"
#include "store/guidance_store.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <skillhost/skill_abi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using skillhost::mcp::McpSession;
using skillhost::testing::McpFixtureHome;

constexpr auto kWait = 10s;  // generous: only a broken server takes this long

class SessionHarness {
public:
    explicit SessionHarness(std::string_view users = skillhost::testing::kDefaultUsers, std::string_view policy = "",
                            std::string_view extra_config = "")
        : home(users, policy, extra_config), ctx(SKILLHOST_BINARY) {
        home.install_fixture("echo");
        ctx.options.config_file = home.config_file();
        ctx.options.home = home.home_dir();
        auto r = ctx.runtime();
        if (!r) throw std::runtime_error(r.error().code + ": " + r.error().message);
        rt = r.value();
        auto options = skillhost::reload::live_catalog_options(skillhost::app::parts_of(*rt).config);
        // The host's storage for plugins ("skillhost.storage/1") on the home's database, as the
        // runtime's own catalog has it: the memory plugin keeps its memories there.
        auto storage = skillhost::app::PluginStorageService::open(
            skillhost::app::storage_location(skillhost::app::parts_of(*rt).config));
        if (!storage) throw std::runtime_error(storage.error().code + ": " + storage.error().message);
        options.loader.storage = storage.value();
        catalog = std::make_unique<skillhost::reload::LiveCatalog>(std::move(options));
        catalog->rescan();
    }

    ~SessionHarness() {
        if (session) session->close();
    }

    void open(std::string user, std::size_t page_size = 50) {
        auto u = rt->user(user);
        if (!u) throw std::runtime_error(u.error().message);
        skillhost::mcp::McpSessionOptions options;
        options.page_size = page_size;
        options.playbooks = playbooks.get();
        session = std::make_unique<McpSession>(
            *skillhost::app::parts_of(*rt).pipeline, *catalog, u.value(), options, [this](const std::string& text) {
                std::lock_guard lock(mutex);
                json::value message = json::parse(text);
                // A batch's answer (an array) is kept as {"batch": [...]}.
                received.push_back(message.is_array() ? json::object{{"batch", message}} : message.as_object());
                arrived.notify_all();
            });
    }

    void initialize(std::string user = "owner", std::size_t page_size = 50, json::object capabilities = {},
                    std::string_view version = "2025-11-25") {
        open(std::move(user), page_size);
        auto r = request("initialize", {{"protocolVersion", version},
                                        {"capabilities", std::move(capabilities)},
                                        {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
        if (!r.contains("result")) throw std::runtime_error("initialize failed: " + json::serialize(r));
        send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    }

    void send(const json::object& message) { session->handle_line(json::serialize(message)); }

    // Sends a request and waits for the response with its id.
    json::object request(std::string_view method, json::object params = {}) {
        const std::int64_t id = ++next_id;
        send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
        return wait_for([id](const json::object& m) {
            const auto* i = m.if_contains("id");
            return i && i->is_int64() && i->as_int64() == id && !m.contains("method");
        });
    }

    json::object call(std::string_view tool, json::object args = {}) {
        return request("tools/call", {{"name", tool}, {"arguments", std::move(args)}});
    }

    // Waits for (and removes) the first message that matches; fails the test after kWait.
    json::object wait_for(const std::function<bool(const json::object&)>& match,
                          std::chrono::milliseconds limit = kWait) {
        std::unique_lock lock(mutex);
        json::object found;
        const bool ok = arrived.wait_for(lock, limit, [&] {
            for (auto it = received.begin(); it != received.end(); ++it) {
                if (match(*it)) {
                    found = std::move(*it);
                    received.erase(it);
                    return true;
                }
            }
            return false;
        });
        if (!ok) ADD_FAILURE() << "no matching message arrived";
        return found;
    }

    std::vector<json::object> take_all() {
        std::lock_guard lock(mutex);
        std::vector<json::object> out(received.begin(), received.end());
        received.clear();
        return out;
    }

    McpFixtureHome home;
    skillhost::cli::CliContext ctx;
    skillhost::cli::HostRuntime* rt = nullptr;
    std::unique_ptr<skillhost::reload::LiveCatalog> catalog;
    std::unique_ptr<skillhost::store::GuidanceStore> playbooks;  // set before open(): prompts publish them
    std::unique_ptr<McpSession> session;
    std::mutex mutex;
    std::condition_variable arrived;
    std::deque<json::object> received;
    std::int64_t next_id = 0;
};

bool is_notification(const json::object& m, std::string_view method) {
    const auto* v = m.if_contains("method");
    return v && v->is_string() && v->get_string() == method && !m.contains("id");
}

std::int64_t error_code(const json::object& response) {
    const auto* e = response.if_contains("error");
    return e ? e->at("code").to_number<std::int64_t>() : 0;
}

std::string tool_text(const json::object& response) {
    return std::string(response.at("result").at("content").at(0).at("text").as_string());
}

TEST(McpSession, InitializeAnswersEachSupportedVersionAndTheLatestOtherwise) {
    SessionHarness h;
    for (std::string_view version : {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "1999-01-01"}) {
        h.open("owner");
        auto r = h.request("initialize", {{"protocolVersion", version},
                                          {"capabilities", json::object()},
                                          {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
        ASSERT_TRUE(r.contains("result")) << json::serialize(r);
        const auto& result = r.at("result").as_object();
        const bool supported = version.starts_with("2025");
        EXPECT_EQ(result.at("protocolVersion").as_string(), supported ? version : "2025-11-25") << version;
        EXPECT_EQ(result.at("serverInfo").at("name").as_string(), "skillhost");
        EXPECT_FALSE(result.at("serverInfo").at("version").as_string().empty());
        EXPECT_EQ(result.at("capabilities").at("tools").at("listChanged"), json::value(true));
        EXPECT_TRUE(result.at("capabilities").as_object().contains("logging"));
        h.session->close();
    }
}

TEST(McpSession, OnlyPingIsAnsweredBeforeInitialize) {
    SessionHarness h;
    h.open("owner");
    EXPECT_TRUE(h.request("ping").at("result").as_object().empty());
    auto list = h.request("tools/list");
    EXPECT_EQ(error_code(list), -32002) << json::serialize(list);
    auto no_version = h.request("initialize", {{"capabilities", json::object()}});
    EXPECT_EQ(error_code(no_version), -32602);
    auto ok = h.request("initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()}});
    ASSERT_TRUE(ok.contains("result"));
    auto again = h.request("initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()}});
    EXPECT_EQ(error_code(again), -32600) << "a second initialize is refused";
}

TEST(McpSession, ToolsListPagesThroughWhatTheUserMaySee) {
    SessionHarness h;
    h.initialize("owner", 4);
    std::vector<std::string> names;
    json::value cursor = nullptr;
    int pages = 0;
    do {
        json::object params;
        if (!cursor.is_null()) params["cursor"] = cursor;
        auto r = h.request("tools/list", params);
        ASSERT_TRUE(r.contains("result")) << json::serialize(r);
        const auto& result = r.at("result").as_object();
        EXPECT_LE(result.at("tools").as_array().size(), 4u);
        for (const auto& t : result.at("tools").as_array()) {
            const auto& tool = t.as_object();
            names.emplace_back(tool.at("name").as_string());
            EXPECT_EQ(tool.at("inputSchema").at("type").as_string(), "object") << tool.at("name");
            EXPECT_TRUE(tool.at("annotations").as_object().contains("readOnlyHint"));
            EXPECT_FALSE(tool.at("description").as_string().empty());
        }
        cursor = result.contains("nextCursor") ? result.at("nextCursor") : json::value(nullptr);
        ++pages;
    } while (!cursor.is_null() && pages < 20);
    auto u = h.rt->user("owner");
    std::vector<std::string> expected;
    for (const auto* e : skillhost::app::parts_of(*h.rt).pipeline->visible_entries(*h.catalog->snapshot(), u.value()))
        expected.push_back(e->spec->id);
    EXPECT_EQ(names, expected);
    EXPECT_EQ(names.size(), 11u) << "owner (bounded_auto) sees every echo skill";
    EXPECT_EQ(pages, 3);

    auto add = std::find(names.begin(), names.end(), "add");
    ASSERT_NE(add, names.end());

    auto bad = h.request("tools/list", {{"cursor", "not-a-cursor"}});
    EXPECT_EQ(error_code(bad), -32602) << json::serialize(bad);
    auto wrong_type = h.request("tools/list", {{"cursor", 5}});
    EXPECT_EQ(error_code(wrong_type), -32602);
}

TEST(McpSession, AGuestInEmulationModeSeesOnlyReadOnlyTools) {
    SessionHarness h;
    h.initialize("eve");
    auto r = h.request("tools/list");
    std::set<std::string> names;
    for (const auto& t : r.at("result").at("tools").as_array()) names.emplace(t.at("name").as_string());
    EXPECT_TRUE(names.contains("echo"));
    EXPECT_FALSE(names.contains("fail")) << "fail is not read-only";
    EXPECT_FALSE(names.contains("throws"));
}

TEST(McpSession, ASuccessfulCallCarriesStructuredContentAndATextCopy) {
    SessionHarness h;
    h.initialize();
    auto r = h.call("add", {{"a", 2}, {"b", 3}});
    const auto& result = r.at("result").as_object();
    EXPECT_EQ(result.at("isError"), json::value(false));
    EXPECT_EQ(result.at("structuredContent").at("sum").to_number<int>(), 5);
    EXPECT_EQ(json::parse(tool_text(r)), result.at("structuredContent"));
    EXPECT_EQ(result.at("content").at(0).at("type").as_string(), "text");
}

// The renderer on its own: a skill whose result is a JSON string answers with that text.
TEST(McpToolResult, ATextResultIsItsTextNotAQuotedJsonString) {
    skillhost::exec::CallOutcome outcome;
    outcome.result.ok = true;
    outcome.result.output = "This is a simple text response";
    const json::object rendered = skillhost::mcp::render_call_result(outcome, "owner");
    EXPECT_EQ(rendered.at("content").at(0).at("text").as_string(), "This is a simple text response");
    EXPECT_FALSE(rendered.contains("structuredContent")) << "only objects are structured content";

    outcome.result.output = json::array{1, "two"};
    EXPECT_EQ(skillhost::mcp::render_call_result(outcome, "owner").at("content").at(0).at("text").as_string(),
              R"([1,"two"])");
}

TEST(McpSession, ASkillFailureIsAToolResultWithCodeMessageAndSuggestions) {
    SessionHarness h;
    h.initialize();
    auto r = h.call("fail", {{"reason", "testing"}});
    const auto& result = r.at("result").as_object();
    EXPECT_EQ(result.at("isError"), json::value(true));
    const std::string text = tool_text(r);
    EXPECT_TRUE(text.starts_with("ECHO_FAILED: ")) << text;
    EXPECT_NE(text.find("call echo.noop instead"), std::string::npos) << text;
    EXPECT_EQ(result.at("_meta").at("skillhost/error").at("code").as_string(), "ECHO_FAILED");
    EXPECT_FALSE(result.contains("structuredContent"));

    auto invalid = h.call("add", {{"a", "two"}, {"b", 3}});
    EXPECT_EQ(invalid.at("result").at("isError"), json::value(true)) << "argument errors are for the model to fix";
    EXPECT_TRUE(tool_text(invalid).starts_with("INVALID_ARGS")) << tool_text(invalid);
}

TEST(McpSession, UnknownToolsAndMalformedParamsAreJsonRpcErrors) {
    SessionHarness h;
    h.initialize();
    auto unknown = h.call("no_such_tool");
    EXPECT_EQ(error_code(unknown), -32602);
    EXPECT_NE(unknown.at("error").at("message").as_string().find("no_such_tool"), json::string::npos);
    EXPECT_EQ(error_code(h.request("tools/call", {{"arguments", json::object()}})), -32602) << "no name";
    EXPECT_EQ(error_code(h.request("tools/call", {{"name", 7}})), -32602) << "name not a string";
    EXPECT_EQ(error_code(h.request("tools/call", {{"name", "add"}, {"arguments", json::array{1, 2}}})), -32602);
    EXPECT_EQ(error_code(h.request("no/such/method")), -32601);
}

TEST(McpSession, ParseErrorsAndInvalidRequestsAreAnswered) {
    SessionHarness h;
    h.initialize();
    auto is_error_for_null = [](const json::object& m) { return m.contains("error") && m.at("id").is_null(); };
    h.session->handle_line("{not json");
    EXPECT_EQ(error_code(h.wait_for(is_error_for_null)), -32700);
    h.session->handle_line(R"({"jsonrpc":"2.0","id":3})");
    EXPECT_EQ(error_code(h.wait_for([](const json::object& m) { return m.contains("error"); })), -32600);
    h.session->handle_line(R"({"jsonrpc":"1.0","id":4,"method":"ping"})");
    EXPECT_EQ(error_code(h.wait_for([](const json::object& m) { return m.contains("error"); })), -32600);
    h.session->handle_line("[]");
    EXPECT_EQ(error_code(h.wait_for(is_error_for_null)), -32600);
    h.session->handle_line("42");
    EXPECT_EQ(error_code(h.wait_for(is_error_for_null)), -32600);
    h.session->handle_line(R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})");
    EXPECT_EQ(error_code(h.wait_for(is_error_for_null)), -32600);
    // Unknown notifications are ignored, never answered.
    h.session->handle_line(R"({"jsonrpc":"2.0","method":"notifications/whatever"})");
    EXPECT_TRUE(h.request("ping").contains("result"));
    EXPECT_TRUE(h.take_all().empty());
}

json::array wait_for_batch(SessionHarness& h) {
    auto answer = h.wait_for([](const json::object& m) { return m.contains("batch"); });
    return answer.contains("batch") ? answer.at("batch").as_array() : json::array();
}

// MCP 2025-03-26: a server MUST accept batches. The answers to a batch's requests come back together
// as one array, calls included (answered on other threads), notifications unanswered.
TEST(McpSession, ABatchIn20250326IsAnsweredWithOneArrayOfItsResponses) {
    SessionHarness h;
    h.initialize("owner", 50, {}, "2025-03-26");
    h.session->handle_line(
        R"([{"jsonrpc":"2.0","id":"a","method":"ping"},)"
        R"({"jsonrpc":"2.0","method":"notifications/whatever"},)"
        R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}},)"
        R"({"jsonrpc":"2.0","id":8,"method":"no/such/method"},)"
        R"(17])");
    json::array answer = wait_for_batch(h);
    ASSERT_EQ(answer.size(), 4u) << json::serialize(answer);
    std::map<std::string, json::object> by_id;
    for (const auto& m : answer) by_id[json::serialize(m.at("id"))] = m.as_object();
    EXPECT_TRUE(by_id["\"a\""].contains("result"));
    EXPECT_EQ(by_id["7"].at("result").at("structuredContent").at("sum").to_number<int>(), 5);
    EXPECT_EQ(error_code(by_id["8"]), -32601);
    EXPECT_EQ(error_code(by_id["null"]), -32600);  // 17 is not a message
    EXPECT_TRUE(h.take_all().empty());             // nothing was sent on its own

    // Only notifications: nothing is answered.
    h.session->handle_line(R"([{"jsonrpc":"2.0","method":"notifications/whatever"}])");
    EXPECT_TRUE(h.request("ping").contains("result"));
    EXPECT_TRUE(h.take_all().empty());
}

TEST(McpSession, BatchesAreRefusedAfter20250326AndWhenEmptyNestedOrTooLong) {
    auto is_error_for_null = [](const json::object& m) { return m.contains("error") && m.at("id").is_null(); };
    {
        SessionHarness h;
        h.initialize("owner", 50, {}, "2025-06-18");
        h.session->handle_line(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
        auto refused = h.wait_for(is_error_for_null);
        EXPECT_EQ(error_code(refused), -32600);
        EXPECT_NE(json::serialize(refused).find("2025-03-26"), std::string::npos) << json::serialize(refused);
    }
    SessionHarness h;
    h.initialize("owner", 50, {}, "2025-03-26");
    h.session->handle_line("[]");
    EXPECT_EQ(error_code(h.wait_for(is_error_for_null)), -32600);
    std::string many = "[";
    for (std::size_t i = 0; i <= skillhost::mcp::kMaxBatchLength; ++i)
        many += (i ? "," : "") + std::string(R"({"jsonrpc":"2.0","method":"notifications/x"})");
    h.session->handle_line(many + "]");
    auto too_long = h.wait_for(is_error_for_null);
    EXPECT_EQ(error_code(too_long), -32600);
    EXPECT_NE(json::serialize(too_long).find("at most"), std::string::npos);
    h.session->handle_line(R"([[{"jsonrpc":"2.0","id":1,"method":"ping"}]])");
    auto nested = wait_for_batch(h);
    ASSERT_EQ(nested.size(), 1u);
    EXPECT_EQ(error_code(nested.at(0).as_object()), -32600);
}

// A batched call the client cancels is never answered; the rest of its batch still is.
TEST(McpSession, CancellingABatchedCallLeavesItOutOfTheBatchAnswer) {
    SessionHarness h;
    h.initialize("owner", 50, {}, "2025-03-26");
    h.session->handle_line(
        R"([{"jsonrpc":"2.0","id":1,"method":"ping"},)"
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":3000}}}])");
    while (h.session->calls_in_flight() == 0) std::this_thread::sleep_for(5ms);
    h.send({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 2}}}});
    json::array answer = wait_for_batch(h);
    ASSERT_EQ(answer.size(), 1u) << json::serialize(answer);
    EXPECT_EQ(answer.at(0).at("id").to_number<int>(), 1);
}

TEST(McpSession, ACallNeedingApprovalReturnsTheApprovalIdAndHowToApprove) {
    SessionHarness h;
    h.initialize("alice");  // supervised_auto: a medium-risk, non-read-only skill needs approval
    auto r = h.call("fail", {{"reason", "later"}});
    const auto& result = r.at("result").as_object();
    EXPECT_EQ(result.at("isError"), json::value(true));
    const auto& error = result.at("_meta").at("skillhost/error").as_object();
    ASSERT_EQ(error.at("code").as_string(), "APPROVAL_REQUIRED") << json::serialize(r);
    const std::string id(error.at("details").at("approval_id").as_string());
    const std::string text = tool_text(r);
    EXPECT_NE(text.find("skillhost approvals approve " + id + " --user alice"), std::string::npos) << text;

    auto record = skillhost::app::parts_of(*h.rt).approvals->get(id);
    ASSERT_TRUE(record) << record.error().message;
    EXPECT_EQ(record->skill_id, "fail");
    EXPECT_EQ(record->user_id, "alice");
}

TEST(McpSession, AnAskRuleAlsoQueuesTheCall) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "global:\n  ask:\n    - \"add\"\n");
    h.initialize("owner");
    auto r = h.call("add", {{"a", 1}, {"b", 1}});
    EXPECT_EQ(r.at("result").at("_meta").at("skillhost/error").at("code").as_string(), "APPROVAL_REQUIRED")
        << json::serialize(r);
}

TEST(McpSession, ListChangedIsSentWhenAReloadChangesWhatTheClientSees) {
    SessionHarness h;
    h.initialize();
    h.catalog->rescan();  // nothing changed on disk: no notification
    EXPECT_TRUE(h.request("ping").contains("result"));
    for (const auto& m : h.take_all()) EXPECT_FALSE(is_notification(m, "notifications/tools/list_changed"));

    h.home.install_fixture("plain_c");
    h.catalog->rescan();
    h.wait_for([](const json::object& m) { return is_notification(m, "notifications/tools/list_changed"); });
    auto r = h.request("tools/list");
    std::set<std::string> names;
    for (const auto& t : r.at("result").at("tools").as_array()) names.emplace(t.at("name").as_string());
    EXPECT_TRUE(names.contains("upper")) << json::serialize(r);
    EXPECT_TRUE(names.contains("add"));
}

TEST(McpSession, CancellingASlowCallStopsItAndItIsNotAnswered) {
    SessionHarness h;
    h.initialize();
    // The skill sleeps in 5 ms slices and stops when cancelled; uncancelled it would answer after 3 s.
    constexpr auto skill_time = 3s;
    const auto started = std::chrono::steady_clock::now();
    h.send({{"jsonrpc", "2.0"},
            {"id", "slow"},
            {"method", "tools/call"},
            {"params", {{"name", "sleep"}, {"arguments", {{"ms", 3000}}}}}});
    EXPECT_EQ(h.session->calls_in_flight(), 1u);
    h.send({{"jsonrpc", "2.0"},
            {"method", "notifications/cancelled"},
            {"params", {{"requestId", "slow"}, {"reason", "user pressed stop"}}}});
    while (h.session->calls_in_flight() != 0 && std::chrono::steady_clock::now() - started < kWait)
        std::this_thread::sleep_for(5ms);
    EXPECT_EQ(h.session->calls_in_flight(), 0u);
    EXPECT_LT(std::chrono::steady_clock::now() - started, skill_time) << "the skill ran to its end";
    // Wait past the moment an uncancelled call would have answered, then look for its answer.
    std::this_thread::sleep_until(started + skill_time + 500ms);
    EXPECT_TRUE(h.request("ping").contains("result"));
    for (const auto& m : h.take_all())
        EXPECT_NE(m.if_contains("id") ? *m.if_contains("id") : json::value(), json::value("slow"));
    // Cancelling something that is not running is ignored.
    h.send({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 999}}}});
    EXPECT_TRUE(h.request("ping").contains("result"));
}

TEST(McpSession, CallsInFlightTogetherEachGetTheirOwnAnswer) {
    SessionHarness h;
    h.initialize();
    // Several calls at once, a slow one among them: each response carries its own id and result.
    h.send({{"jsonrpc", "2.0"},
            {"id", "slow"},
            {"method", "tools/call"},
            {"params", {{"name", "sleep"}, {"arguments", {{"ms", 300}}}}}});
    for (int i = 0; i < 6; ++i)
        h.send({{"jsonrpc", "2.0"},
                {"id", 100 + i},
                {"method", "tools/call"},
                {"params", {{"name", "add"}, {"arguments", {{"a", i}, {"b", 1000}}}}}});
    for (int i = 0; i < 6; ++i) {
        auto r =
            h.wait_for([i](const json::object& m) { return m.contains("id") && m.at("id") == json::value(100 + i); });
        EXPECT_EQ(r.at("result").at("structuredContent").at("sum").to_number<int>(), 1000 + i);
    }
    auto slow = h.wait_for([](const json::object& m) { return m.contains("id") && m.at("id") == "slow"; });
    EXPECT_EQ(slow.at("result").at("structuredContent").at("slept_ms").to_number<int>(), 300) << json::serialize(slow);
    EXPECT_EQ(h.session->calls_in_flight(), 0u);
}

TEST(McpSession, ProgressReportsBecomeProgressNotificationsForCallsWithAToken) {
    SessionHarness h;
    h.initialize();
    auto r = h.request("tools/call",
                       {{"name", "progress"}, {"arguments", json::object()}, {"_meta", {{"progressToken", "p1"}}}});
    EXPECT_EQ(r.at("result").at("isError"), json::value(false)) << json::serialize(r);
    auto messages = h.take_all();
    std::vector<double> progress;
    for (const auto& m : messages) {
        if (!is_notification(m, "notifications/progress")) continue;
        const auto& p = m.at("params").as_object();
        EXPECT_EQ(p.at("progressToken").as_string(), "p1");
        EXPECT_EQ(p.at("total").to_number<double>(), 3.0);
        EXPECT_FALSE(p.at("message").as_string().empty());
        progress.push_back(p.at("progress").to_number<double>());
    }
    EXPECT_EQ(progress, (std::vector<double>{1, 2, 3}));

    h.call("progress");  // no token: no notifications
    for (const auto& m : h.take_all()) EXPECT_FALSE(is_notification(m, "notifications/progress"));
}

TEST(McpSession, LoggingSetLevelFiltersNotificationsMessage) {
    SessionHarness h;
    h.initialize();
    EXPECT_EQ(error_code(h.request("logging/setLevel", {{"level", "loud"}})), -32602);
    ASSERT_TRUE(h.request("logging/setLevel", {{"level", "error"}}).contains("result"));
    h.session->log(skillhost::mcp::LogLevel::warning, "below the level");
    h.session->log(skillhost::mcp::LogLevel::error, "at the level");
    auto m = h.wait_for([](const json::object& x) { return is_notification(x, "notifications/message"); });
    EXPECT_EQ(m.at("params").at("level").as_string(), "error");
    EXPECT_EQ(m.at("params").at("data").as_string(), "at the level");
    EXPECT_TRUE(h.take_all().empty()) << "the warning was below the client's level";
}

class ElicitationTest : public ::testing::Test {
protected:
    // `add` needs approval through an ask rule; the client declares elicitation.
    SessionHarness h{skillhost::testing::kDefaultUsers, "global:\n  ask:\n    - \"add\"\n"};

    // Starts a call of add(2, 3) and returns the elicitation/create request it caused.
    json::object call_and_expect_elicitation() {
        h.send({{"jsonrpc", "2.0"},
                {"id", "c1"},
                {"method", "tools/call"},
                {"params", {{"name", "add"}, {"arguments", {{"a", 2}, {"b", 3}}}}}});
        return h.wait_for(
            [](const json::object& m) { return m.contains("method") && m.at("method") == "elicitation/create"; });
    }
    void answer(const json::object& request, json::object result) {
        h.send({{"jsonrpc", "2.0"}, {"id", request.at("id")}, {"result", std::move(result)}});
    }
    json::object call_response() {
        return h.wait_for(
            [](const json::object& m) { return m.contains("id") && m.at("id") == "c1" && !m.contains("method"); });
    }
    std::string approval_in(const json::object& elicitation) {
        const std::string message(elicitation.at("params").at("message").as_string());
        const auto at = message.find("apr-");
        return at == std::string::npos ? std::string() : message.substr(at, message.find(')', at) - at);
    }
};

TEST_F(ElicitationTest, ApprovingInTheClientRunsTheCallAndReturnsItsRealResult) {
    h.initialize("owner", 50, {{"elicitation", json::object()}});
    auto ask = call_and_expect_elicitation();
    const auto& schema = ask.at("params").at("requestedSchema").as_object();
    EXPECT_EQ(schema.at("properties").at("decision").at("enum"), (json::array{"approve", "reject"}));
    const std::string id = approval_in(ask);
    ASSERT_FALSE(id.empty()) << json::serialize(ask);
    answer(ask, {{"action", "accept"}, {"content", {{"decision", "approve"}}}});
    auto r = call_response();
    EXPECT_EQ(r.at("result").at("isError"), json::value(false)) << json::serialize(r);
    EXPECT_EQ(r.at("result").at("structuredContent").at("sum").to_number<int>(), 5);
    auto record = skillhost::app::parts_of(*h.rt).approvals->get(id);
    ASSERT_TRUE(record);
    EXPECT_EQ(std::string(skillhost::decisions::to_string(record->state)), "executed");
}

TEST_F(ElicitationTest, RejectingOrDecliningRefusesTheCallAndRecordsTheRejection) {
    h.initialize("owner", 50, {{"elicitation", json::object()}});
    for (json::object reply :
         {json::object{{"action", "accept"}, {"content", {{"decision", "reject"}, {"reason", "not today"}}}},
          json::object{{"action", "decline"}}}) {
        auto ask = call_and_expect_elicitation();
        const std::string id = approval_in(ask);
        answer(ask, reply);
        auto r = call_response();
        EXPECT_EQ(r.at("result").at("isError"), json::value(true));
        EXPECT_TRUE(tool_text(r).starts_with("APPROVAL_REJECTED")) << tool_text(r);
        auto record = skillhost::app::parts_of(*h.rt).approvals->get(id);
        ASSERT_TRUE(record);
        EXPECT_EQ(std::string(skillhost::decisions::to_string(record->state)), "rejected");
    }
}

TEST_F(ElicitationTest, DismissingTheFormLeavesTheApprovalPendingForTheCli) {
    h.initialize("owner", 50, {{"elicitation", json::object()}});
    auto ask = call_and_expect_elicitation();
    const std::string id = approval_in(ask);
    answer(ask, {{"action", "cancel"}});
    auto r = call_response();
    EXPECT_EQ(r.at("result").at("_meta").at("skillhost/error").at("code").as_string(), "APPROVAL_REQUIRED");
    EXPECT_NE(tool_text(r).find("skillhost approvals approve " + id), std::string::npos) << tool_text(r);
    EXPECT_EQ(std::string(skillhost::decisions::to_string(skillhost::app::parts_of(*h.rt).approvals->get(id)->state)),
              "pending");
}

TEST_F(ElicitationTest, ClientsWithoutElicitationOrOn20250326GetTheApprovalId) {
    h.initialize("owner", 50, {{"elicitation", json::object()}}, "2025-03-26");
    auto r = h.call("add", {{"a", 2}, {"b", 3}});
    EXPECT_EQ(r.at("result").at("_meta").at("skillhost/error").at("code").as_string(), "APPROVAL_REQUIRED");
    for (const auto& m : h.take_all()) EXPECT_FALSE(m.contains("method") && m.at("method") == "elicitation/create");
}

// ---- What the client serves for a call: content items, log lines, sampling, elicitation ----

// A session over the `rich` fixture, initialized with `capabilities`; the plugin runs in the host
// or in a plugin runner process (the parameter), which must make no difference to the client.
class CallServicesTest : public ::testing::TestWithParam<std::string> {
protected:
    void start(json::object capabilities = {}, std::string_view version = "2025-11-25") {
        h.home.install_fixture("rich");
        h.catalog->rescan();
        h.initialize("owner", 50, std::move(capabilities), version);
    }

    // Starts a call and returns the request the server sent to the client because of it.
    json::object start_call_until_request(std::string_view tool, std::string_view method, json::object args = {}) {
        h.send({{"jsonrpc", "2.0"},
                {"id", "call-1"},
                {"method", "tools/call"},
                {"params", {{"name", tool}, {"arguments", std::move(args)}}}});
        return h.wait_for([method](const json::object& m) {
            return m.contains("id") && m.contains("method") && m.at("method").as_string() == method;
        });
    }

    json::object answer_and_wait(const json::object& request, json::object result) {
        h.send({{"jsonrpc", "2.0"}, {"id", request.at("id")}, {"result", std::move(result)}});
        return h.wait_for([](const json::object& m) { return m.contains("id") && m.at("id") == "call-1"; });
    }

    SessionHarness h{skillhost::testing::kDefaultUsers, "", "isolation: {plugins: {rich: " + GetParam() + "}}\n"};
};

TEST_P(CallServicesTest, ContentItemsComeBackAsToolContentWithTheStructuredResult) {
    start();
    auto r = h.call("rich_content");
    const auto& result = r.at("result").as_object();
    ASSERT_FALSE(result.at("isError").as_bool()) << json::serialize(r);
    const auto& content = result.at("content").as_array();
    ASSERT_EQ(content.size(), 5u);
    EXPECT_EQ(content[0].at("type"), "text");
    EXPECT_EQ(content[0].at("text"), "Here is the chart.");
    EXPECT_EQ(content[1].at("type"), "image");
    EXPECT_EQ(content[1].at("mimeType"), "image/png");
    EXPECT_EQ(std::string_view(content[1].at("data").as_string()).substr(0, 8),
              "iVBORw0K");  // base64 of the PNG signature
    EXPECT_EQ(content[2].at("type"), "audio");
    EXPECT_EQ(content[3].at("type"), "resource_link");
    EXPECT_EQ(content[3].at("uri"), "file:///reports/q3.pdf");
    EXPECT_EQ(content[4].at("type"), "resource");
    EXPECT_EQ(content[4].at("resource").at("text"), "first note");
    EXPECT_EQ(result.at("structuredContent").at("items"), 5);
}

TEST_P(CallServicesTest, MalformedAndTooManyContentItemsAreRefusedWithCodes) {
    start();
    auto r = h.call("rich_invalid", {{"count", 70}, {"big", true}});
    const auto& out = r.at("result").at("structuredContent").as_object();
    EXPECT_EQ(out.at("bad_type"), "CONTENT_INVALID");
    EXPECT_EQ(out.at("bad_base64"), "CONTENT_INVALID");
    EXPECT_EQ(out.at("no_mime"), "CONTENT_INVALID");
    EXPECT_EQ(out.at("both_text_and_blob"), "CONTENT_INVALID");
    EXPECT_EQ(out.at("added"), SKILLHOST_CONTENT_MAX_ITEMS);
    EXPECT_EQ(out.at("last"), "CONTENT_TOO_LARGE");
    EXPECT_EQ(out.at("big"), "CONTENT_TOO_LARGE");
    // The items that were accepted are the call's content.
    EXPECT_EQ(r.at("result").at("content").as_array().size(), std::size_t{SKILLHOST_CONTENT_MAX_ITEMS});
}

TEST_P(CallServicesTest, LogLinesOfTheCallArriveAtTheClientsLevelAndAreBounded) {
    start();
    h.request("logging/setLevel", {{"level", "info"}});
    auto r = h.call("rich_log", {{"lines", 150}});
    ASSERT_FALSE(r.at("result").at("isError").as_bool());
    std::vector<json::object> lines;
    for (auto& m : h.take_all())
        if (is_notification(m, "notifications/message") && m.at("params").at("logger") == "rich") lines.push_back(m);
    // debug is below the level; info and warn arrive; 100 lines at most, then one note.
    ASSERT_EQ(lines.size(), 100u);
    EXPECT_EQ(lines[0].at("params").at("level"), "info");
    EXPECT_EQ(lines[0].at("params").at("data"), "starting the work");
    EXPECT_EQ(lines[1].at("params").at("level"), "warning");

    h.request("logging/setLevel", {{"level", "error"}});
    h.call("rich_log");
    for (auto& m : h.take_all()) EXPECT_FALSE(is_notification(m, "notifications/message")) << json::serialize(m);
}

TEST_P(CallServicesTest, CompletionGoesToTheClientThatDeclaredSamplingAndIsAudited) {
    start({{"sampling", json::object()}});
    auto request = start_call_until_request("rich_sample", "sampling/createMessage", {{"prompt", "Hi there"}});
    const auto& params = request.at("params").as_object();
    EXPECT_EQ(params.at("systemPrompt"), "Be brief.");
    EXPECT_EQ(params.at("maxTokens"), 50);
    EXPECT_EQ(params.at("messages").at(0).at("content").at("text"), "Hi there");
    auto r = answer_and_wait(request, {{"role", "assistant"},
                                       {"content", {{"type", "text"}, {"text", "Hello from the client"}}},
                                       {"model", "client-model"}});
    const auto& out = r.at("result").at("structuredContent").as_object();
    EXPECT_EQ(out.at("ok"), true) << json::serialize(r);
    EXPECT_EQ(out.at("content"), "Hello from the client");
    EXPECT_EQ(out.at("backend"), "mcp-client");
    EXPECT_EQ(out.at("model"), "client-model");

    // The audit log says the client answered.
    bool audited = false;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(h.home.home_dir()) / "audit")) {
        std::ifstream file(entry.path());
        for (std::string line; std::getline(file, line);)
            if (line.find("\"llm_call\"") != std::string::npos &&
                line.find("\"sampled_by\":\"client\"") != std::string::npos &&
                line.find("client-model") != std::string::npos)
                audited = true;
    }
    EXPECT_TRUE(audited);
}

TEST_P(CallServicesTest, ARefusedSamplingRequestIsAnErrorForTheSkill) {
    start({{"sampling", json::object()}});
    auto request = start_call_until_request("rich_sample", "sampling/createMessage");
    h.send({{"jsonrpc", "2.0"}, {"id", request.at("id")}, {"error", {{"code", -1}, {"message", "User rejected"}}}});
    auto r = h.wait_for([](const json::object& m) { return m.contains("id") && m.at("id") == "call-1"; });
    const auto& out = r.at("result").at("structuredContent").as_object();
    EXPECT_EQ(out.at("ok"), false);
    EXPECT_EQ(out.at("code"), "LLM_FAILED");
    EXPECT_NE(std::string(out.at("message").as_string()).find("User rejected"), std::string::npos);
}

TEST_P(CallServicesTest, WithoutSamplingTheModelRouterAnswers) {
    start();
    auto r = h.call("rich_sample");
    for (auto& m : h.take_all()) EXPECT_FALSE(m.contains("method") && m.at("method") == "sampling/createMessage");
    // The test home configures no model for the role: the router's answer, not the client's.
    const auto& out = r.at("result").at("structuredContent").as_object();
    if (out.at("ok").as_bool())
        EXPECT_NE(out.at("backend"), "mcp-client");
    else
        EXPECT_NE(out.at("code"), "LLM_FAILED") << json::serialize(out);
}

TEST_P(CallServicesTest, ElicitationAsksTheClientAndChecksTheAnswer) {
    start({{"elicitation", json::object()}});
    auto request = start_call_until_request("rich_elicit", "elicitation/create");
    const auto& params = request.at("params").as_object();
    EXPECT_EQ(params.at("message"), "Who is asking?");
    EXPECT_EQ(params.at("requestedSchema").at("properties").at("color").at("default"), "red");
    auto r = answer_and_wait(request,
                             {{"action", "accept"}, {"content", {{"name", "Ada"}, {"color", "green"}, {"count", 3}}}});
    auto out = r.at("result").at("structuredContent").as_object();
    EXPECT_EQ(out.at("action"), "accept");
    EXPECT_EQ(out.at("content").at("name"), "Ada");
    EXPECT_EQ(out.at("content").at("count"), 3);

    request = start_call_until_request("rich_elicit", "elicitation/create");
    r = answer_and_wait(request, {{"action", "decline"}});
    EXPECT_EQ(r.at("result").at("structuredContent").at("action"), "decline");

    // An answer that breaks the form: the skill learns it, naming the field.
    request = start_call_until_request("rich_elicit", "elicitation/create");
    r = answer_and_wait(request, {{"action", "accept"}, {"content", {{"name", "Ada"}, {"color", "blue"}}}});
    out = r.at("result").at("structuredContent").as_object();
    EXPECT_EQ(out.at("code"), "ELICITATION_FAILED");
    EXPECT_NE(std::string(out.at("message").as_string()).find("color"), std::string::npos);

    request = start_call_until_request("rich_elicit", "elicitation/create");
    r = answer_and_wait(request, {{"action", "accept"}, {"content", {{"color", "red"}}}});
    EXPECT_NE(std::string(r.at("result").at("structuredContent").at("message").as_string()).find("name"),
              std::string::npos);
}

TEST_P(CallServicesTest, ABrokenFormIsRefusedBeforeTheClientIsAsked) {
    start({{"elicitation", json::object()}});
    auto r = h.call("rich_elicit", {{"broken", true}});
    EXPECT_EQ(r.at("result").at("structuredContent").at("code"), "ELICITATION_INVALID");
    for (auto& m : h.take_all()) EXPECT_FALSE(m.contains("method") && m.at("method") == "elicitation/create");
}

// A client that cannot ask its user: the question waits in the elicitation queue for the CLI or
// the HTTP API, and the call stops with ELICITATION_REQUIRED naming it (as an approval would).
TEST_P(CallServicesTest, WithoutTheElicitationCapabilityTheQuestionIsQueuedForTheUser) {
    start();
    auto r = h.call("rich_elicit");
    const json::object& result = r.at("result").as_object();
    EXPECT_EQ(result.at("isError"), true);
    const json::object& error = result.at("_meta").at("skillhost/error").as_object();
    EXPECT_EQ(error.at("code"), "ELICITATION_REQUIRED");
    const std::string id(error.at("details").at("elicitation_id").as_string());
    EXPECT_EQ(id.rfind("eli-", 0), 0u) << id;
    for (auto& m : h.take_all()) EXPECT_FALSE(m.contains("method") && m.at("method") == "elicitation/create");
}

TEST_P(CallServicesTest, CancellingACallEndsItsPendingElicitation) {
    start({{"elicitation", json::object()}});
    start_call_until_request("rich_elicit", "elicitation/create");
    h.send({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", "call-1"}}}});
    // The call ends (the session has nothing in flight) though the client never answered.
    for (int i = 0; i < 1000 && h.session->calls_in_flight() > 0; ++i) std::this_thread::sleep_for(10ms);
    EXPECT_EQ(h.session->calls_in_flight(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Isolation, CallServicesTest, ::testing::Values("in_process", "process"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace

// ---- Resources (the "skillhost.resources/1" plugin extension) ----

// Every resource, prompt and completion test runs with the plugins in the host and in runner
// processes (the parameter): a client must see no difference.
class PublishedByPlugins : public ::testing::TestWithParam<std::string> {
protected:
    std::string isolation() const { return "isolation:\n  mode: " + GetParam() + "\n"; }
    // The plugin `name` of the harness's catalog runs as the parameter says.
    void expect_mode(const SessionHarness& h, std::string_view name) const {
        bool found = false;
        for (const auto& plugin : h.catalog->snapshot()->plugins()) {
            if (plugin->manifest().name != name) continue;
            found = true;
            EXPECT_EQ(plugin->isolated(), GetParam() == "process") << name;
        }
        EXPECT_TRUE(found) << name;
    }
};
class McpResources : public PublishedByPlugins {};
class McpPrompts : public PublishedByPlugins {};
class McpCompletion : public PublishedByPlugins {};

// Copies the built-in plugin `name` (library and manifest) into the fixture home's plugin directory.
void install_builtin_plugin(const McpFixtureHome& home, const std::string& name) {
    const std::filesystem::path dir(SKILLHOST_BUILTIN_PLUGIN_DIR);
    const std::string library = "libskillhost_" + name + ".so";
    std::filesystem::copy_file(dir / library, home.plugins_dir() / library);
    std::filesystem::copy_file(dir / (name + ".yaml"), home.plugins_dir() / (name + ".yaml"));
}

std::set<std::string> resource_uris(const json::object& response) {
    std::set<std::string> uris;
    for (const auto& r : response.at("result").at("resources").as_array()) uris.emplace(r.at("uri").as_string());
    return uris;
}

TEST_P(McpResources, PluginsListTemplatesAndReadTextAndBinaryResources) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    expect_mode(h, "conformance");
    h.open("owner");
    auto init = h.request("initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}});
    EXPECT_EQ(init.at("result").at("capabilities").at("resources").at("subscribe"), json::value(true));

    auto list = h.request("resources/list");
    EXPECT_EQ(resource_uris(list),
              (std::set<std::string>{"test://static-binary", "test://static-text", "test://watched-resource"}))
        << json::serialize(list);
    auto text = h.request("resources/read", {{"uri", "test://static-text"}});
    const auto& content = text.at("result").at("contents").at(0);
    EXPECT_EQ(content.at("uri"), "test://static-text");
    EXPECT_EQ(content.at("mimeType"), "text/plain");
    EXPECT_NE(content.at("text").as_string().find("static text"), json::string::npos);
    auto blob = h.request("resources/read", {{"uri", "test://static-binary"}});
    EXPECT_TRUE(blob.at("result").at("contents").at(0).as_object().contains("blob")) << json::serialize(blob);

    auto templates = h.request("resources/templates/list");
    EXPECT_EQ(templates.at("result").at("resourceTemplates").at(0).at("uriTemplate"), "test://template/{id}/data");
    auto templated = h.request("resources/read", {{"uri", "test://template/123/data"}});
    EXPECT_NE(templated.at("result").at("contents").at(0).at("text").as_string().find("123"), json::string::npos);

    // Pages of one: the cursor names the last uri of the page.
    h.session.reset();
    h.open("owner", 1);
    h.request("initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}});
    auto first = h.request("resources/list");
    ASSERT_EQ(first.at("result").at("resources").as_array().size(), 1u);
    auto second = h.request("resources/list", {{"cursor", first.at("result").at("nextCursor")}});
    EXPECT_EQ(second.at("result").at("resources").at(0).at("uri"), "test://static-text");
}

TEST_P(McpResources, UnknownUrisAndBadParamsAreTheSpecsErrors) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    h.initialize();
    auto missing = h.request("resources/read", {{"uri", "test://nothing-here"}});
    EXPECT_EQ(error_code(missing), -32002) << json::serialize(missing);
    EXPECT_EQ(missing.at("error").at("data").at("uri"), "test://nothing-here");
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", "other://x"}})), -32002);
    EXPECT_EQ(error_code(h.request("resources/read")), -32602);
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", 7}})), -32602);
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", std::string(9000, 'x')}})), -32602);
    EXPECT_EQ(error_code(h.request("resources/list", {{"cursor", 3}})), -32602);
    EXPECT_EQ(error_code(h.request("resources/subscribe")), -32602);
}

TEST_P(McpResources, AUserWhoMayNotCallTheGoverningSkillSeesNoneOfThePluginsResources) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "users:\n  alice:\n    deny: [test_simple_text]\n",
                     isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    h.initialize("alice");
    EXPECT_TRUE(resource_uris(h.request("resources/list")).empty());
    EXPECT_TRUE(h.request("resources/templates/list").at("result").at("resourceTemplates").as_array().empty());
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", "test://static-text"}})), -32002);
    h.session.reset();
    h.initialize("owner");
    EXPECT_FALSE(resource_uris(h.request("resources/list")).empty());
}

TEST_P(McpResources, WorkspaceFilesAreResourcesUnderTheSamePathRulesAsFsRead) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "global:\n  deny: [\"fs_*(path=secrets/**)\"]\n", isolation());
    install_builtin_plugin(h.home, "fs");
    h.catalog->rescan();
    expect_mode(h, "fs");
    const std::filesystem::path workspace = h.rt->user("owner").value().workspace;
    std::filesystem::create_directories(workspace / "notes");
    std::filesystem::create_directories(workspace / "secrets");
    skillhost::testing::write_file(workspace / "notes/plan a.md", "# Plan\nship it\n");
    skillhost::testing::write_file(workspace / "secrets/key.txt", "hunter2");
    skillhost::testing::write_file(workspace / "data.bin", std::string("\x00\x01\x02\xff", 4));
    h.initialize();

    auto list = h.request("resources/list");
    const std::string root = "file://" + workspace.string();
    const std::string plan = root + "/notes/plan%20a.md";
    const auto uris = resource_uris(list);
    EXPECT_TRUE(uris.contains(plan)) << json::serialize(list);
    EXPECT_TRUE(uris.contains(root + "/data.bin"));
    for (const auto& uri : uris) EXPECT_EQ(uri.find("secrets"), std::string::npos) << uri;

    auto read = h.request("resources/read", {{"uri", plan}});
    EXPECT_EQ(read.at("result").at("contents").at(0).at("text"), "# Plan\nship it\n") << json::serialize(read);
    EXPECT_EQ(read.at("result").at("contents").at(0).at("mimeType"), "text/markdown");
    auto binary = h.request("resources/read", {{"uri", root + "/data.bin"}});
    EXPECT_EQ(binary.at("result").at("contents").at(0).at("blob"), "AAEC/w==") << json::serialize(binary);

    // Denied by a rule, outside the workspace, or escaping it: not found, never read.
    auto secret = h.request("resources/read", {{"uri", root + "/secrets/key.txt"}});
    EXPECT_EQ(error_code(secret), -32002) << json::serialize(secret);
    EXPECT_EQ(json::serialize(secret).find("hunter2"), std::string::npos);
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", root + "/notes/../secrets/key.txt"}})), -32002);
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", "file:///etc/passwd"}})), -32002);
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", root + "/notes/%zz"}})), -32002);

    // Every read is audited, the refused ones too.
    std::string audit;
    for (const auto& day : std::filesystem::directory_iterator(std::filesystem::path(h.home.home_dir()) / "audit"))
        audit += skillhost::testing::read_file(day.path());
    std::size_t reads = 0;
    for (std::size_t at = audit.find("\"resource_read\""); at != std::string::npos;
         at = audit.find("\"resource_read\"", at + 1))
        ++reads;
    EXPECT_EQ(reads, 6u) << audit;
    EXPECT_NE(audit.find("secrets/key.txt"), std::string::npos);
}

// The memory:// resources of the session's user, and what each read answers.
std::set<std::string> memory_uris(const json::object& response) {
    std::set<std::string> uris;
    for (const auto& uri : resource_uris(response))
        if (uri.starts_with("memory://")) uris.insert(uri);
    return uris;
}

std::string captured_uri(const json::object& response) {
    const auto& id = response.at("result").at("structuredContent").at("memory").at("id");
    return "memory://" + std::to_string(id.as_int64());
}

TEST_P(McpResources, MemoriesAreResourcesOfTheirOwnUserOnlyAndFollowThePolicyOfMemoryRecent) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "users:\n  eve:\n    deny: [memory_recent]\n", isolation());
    install_builtin_plugin(h.home, "memory");
    h.catalog->rescan();
    h.initialize("owner");
    const std::string roadmap = captured_uri(h.call("memory_capture", {{"text", "Roadmap meeting with Dana"}}));
    const std::string dentist =
        captured_uri(h.call("memory_capture", {{"text", "Dentist in six months"}, {"kind", "event"}}));

    auto list = h.request("resources/list");
    EXPECT_EQ(memory_uris(list), (std::set<std::string>{roadmap, dentist})) << json::serialize(list);
    for (const auto& r : list.at("result").at("resources").as_array())
        if (r.at("uri").as_string() == roadmap) {
            EXPECT_EQ(r.at("title"), "Roadmap meeting with Dana");
        }
    auto templates = h.request("resources/templates/list");
    EXPECT_NE(json::serialize(templates).find("\"memory://{id}\""), std::string::npos) << json::serialize(templates);

    auto read = h.request("resources/read", {{"uri", dentist}});
    const auto& content = read.at("result").at("contents").at(0);
    EXPECT_EQ(content.at("mimeType"), "application/json");
    const json::value memory = json::parse(content.at("text").as_string());
    EXPECT_EQ(memory.at("text"), "Dentist in six months");
    EXPECT_EQ(memory.at("kind"), "event");
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", "memory://999"}})), -32002);
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", "memory://1x"}})), -32002);
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", "memory://" + std::string(40, '9')}})), -32002);

    // Alice has memories of her own, under the same ids: she reads hers, never the owner's.
    h.session.reset();
    h.initialize("alice");
    const std::string hers = captured_uri(h.call("memory_capture", {{"text", "Alice's garden plan"}}));
    EXPECT_EQ(memory_uris(h.request("resources/list")), std::set<std::string>{hers});
    auto alice_read = h.request("resources/read", {{"uri", hers}});
    EXPECT_NE(json::serialize(alice_read).find("garden"), std::string::npos) << json::serialize(alice_read);
    EXPECT_EQ(json::serialize(alice_read).find("Roadmap"), std::string::npos);
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", dentist == hers ? roadmap : dentist}})), -32002);

    // Eve's rules deny memory_recent: no memory resources, no template, no reads.
    h.session.reset();
    h.initialize("eve");
    EXPECT_TRUE(memory_uris(h.request("resources/list")).empty());
    EXPECT_EQ(json::serialize(h.request("resources/templates/list")).find("memory://"), std::string::npos);
    EXPECT_EQ(error_code(h.request("resources/read", {{"uri", roadmap}})), -32002);
}

TEST_P(McpResources, SubscribedResourcesAreUpdatedWhenTheirPluginIsReloaded) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    h.initialize();
    EXPECT_TRUE(h.request("resources/subscribe", {{"uri", "test://watched-resource"}}).contains("result"));
    EXPECT_TRUE(h.request("resources/subscribe", {{"uri", "test://static-text"}}).contains("result"));
    EXPECT_TRUE(h.request("resources/unsubscribe", {{"uri", "test://static-text"}}).contains("result"));

    // A new version of the plugin: the subscribed uri is updated, the unsubscribed one is not.
    std::filesystem::remove(h.home.plugins_dir() / "conformance.yaml");
    h.catalog->rescan();
    h.wait_for([](const json::object& m) { return is_notification(m, "notifications/resources/list_changed"); });
    auto updated =
        h.wait_for([](const json::object& m) { return is_notification(m, "notifications/resources/updated"); });
    EXPECT_EQ(updated.at("params").at("uri"), "test://watched-resource");
    EXPECT_TRUE(h.request("ping").contains("result"));
    for (const auto& m : h.take_all())
        EXPECT_FALSE(is_notification(m, "notifications/resources/updated")) << json::serialize(m);
}

// ---- Prompts and completion (the "skillhost.prompts/1" plugin extension) ----

std::vector<std::string> prompt_names(const json::object& response) {
    std::vector<std::string> names;
    for (const auto& p : response.at("result").at("prompts").as_array()) names.emplace_back(p.at("name").as_string());
    return names;
}

// The conformance fixture's prompts among `names` (the built-in skills' examples are prompts too).
std::vector<std::string> fixture_prompts(std::vector<std::string> names) {
    std::erase_if(names, [](const std::string& n) { return n.rfind("test_", 0) != 0; });
    return names;
}

std::string message_text(const json::object& response) {
    return json::serialize(response.at("result").at("messages"));
}

TEST_P(McpPrompts, APluginsPromptsAreListedAndRenderedWithTheirArguments) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    expect_mode(h, "conformance");
    h.open("owner");
    auto init = h.request("initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}});
    const auto& capabilities = init.at("result").at("capabilities").as_object();
    EXPECT_EQ(capabilities.at("prompts").at("listChanged"), json::value(true));
    EXPECT_TRUE(capabilities.at("completions").is_object());

    auto list = h.request("prompts/list");
    EXPECT_EQ(fixture_prompts(prompt_names(list)),
              (std::vector<std::string>{"test_prompt_with_arguments", "test_prompt_with_embedded_resource",
                                        "test_prompt_with_image", "test_simple_prompt"}))
        << json::serialize(list);
    const json::object* found = nullptr;
    for (const auto& p : list.at("result").at("prompts").as_array())
        if (p.at("name") == "test_prompt_with_arguments") found = &p.as_object();
    ASSERT_TRUE(found);
    const json::object& with_arguments = *found;
    EXPECT_EQ(with_arguments.at("arguments").at(0).at("required"), json::value(true));
    EXPECT_FALSE(with_arguments.at("arguments").at(0).as_object().contains("enum")) << "enums serve completion only";

    auto simple = h.request("prompts/get", {{"name", "test_simple_prompt"}});
    EXPECT_EQ(simple.at("result").at("messages").at(0).at("role"), "user");
    EXPECT_EQ(simple.at("result").at("messages").at(0).at("content").at("text"),
              "This is a simple prompt for testing.");
    auto args = h.request(
        "prompts/get", {{"name", "test_prompt_with_arguments"}, {"arguments", {{"arg1", "alpha"}, {"arg2", "beta"}}}});
    EXPECT_NE(message_text(args).find("arg1='alpha', arg2='beta'"), std::string::npos) << json::serialize(args);
    auto embedded = h.request("prompts/get", {{"name", "test_prompt_with_embedded_resource"},
                                              {"arguments", {{"resourceUri", "test://example-resource"}}}});
    const auto& resource = embedded.at("result").at("messages").at(0).at("content");
    EXPECT_EQ(resource.at("type"), "resource");
    EXPECT_EQ(resource.at("resource").at("uri"), "test://example-resource");
    auto image = h.request("prompts/get", {{"name", "test_prompt_with_image"}});
    EXPECT_EQ(image.at("result").at("messages").at(0).at("content").at("mimeType"), "image/png");
}

TEST_P(McpPrompts, UnknownPromptsMissingArgumentsAndBadParamsAreInvalidParams) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    h.initialize();
    auto unknown = h.request("prompts/get", {{"name", "no_such_prompt"}});
    EXPECT_EQ(error_code(unknown), -32602);
    EXPECT_NE(unknown.at("error").at("message").as_string().find("no_such_prompt"), json::string::npos);
    auto missing = h.request("prompts/get", {{"name", "test_prompt_with_arguments"}, {"arguments", {{"arg1", "a"}}}});
    EXPECT_EQ(error_code(missing), -32602);
    EXPECT_NE(missing.at("error").at("message").as_string().find("'arg2'"), json::string::npos)
        << json::serialize(missing);
    EXPECT_EQ(error_code(h.request("prompts/get", {{"name", "test_prompt_with_arguments"},
                                                   {"arguments", {{"arg1", "a"}, {"arg2", 7}}}})),
              -32602);
    EXPECT_EQ(error_code(h.request("prompts/get")), -32602);
    EXPECT_EQ(error_code(h.request("prompts/get", {{"name", 7}})), -32602);
    EXPECT_EQ(error_code(h.request("prompts/get", {{"name", "test_simple_prompt"}, {"arguments", json::array()}})),
              -32602);
    EXPECT_EQ(error_code(h.request("prompts/get", {{"name", std::string(100000, 'p')}})), -32602);
    EXPECT_EQ(error_code(h.request("prompts/list", {{"cursor", 3}})), -32602);
}

TEST_P(McpPrompts, PagesFollowTheCursorThroughEveryPrompt) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    h.open("owner", 1);
    h.request("initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}});
    std::vector<std::string> all;
    json::object params;
    for (int pages = 0; pages < 100; ++pages) {
        auto page = h.request("prompts/list", params);
        auto names = prompt_names(page);
        ASSERT_EQ(names.size(), 1u) << json::serialize(page);
        all.push_back(names[0]);
        const json::object& result = page.at("result").as_object();
        if (!result.contains("nextCursor")) break;
        params = json::object{{"cursor", result.at("nextCursor")}};
    }
    EXPECT_GT(all.size(), 4u) << "the built-in skills' examples come along";
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
    EXPECT_EQ(fixture_prompts(all),
              (std::vector<std::string>{"test_prompt_with_arguments", "test_prompt_with_embedded_resource",
                                        "test_prompt_with_image", "test_simple_prompt"}));
}

TEST_P(McpPrompts, AUserWhoMayNotCallTheGoverningSkillSeesNoneOfThePluginsPrompts) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "users:\n  alice:\n    deny: [test_simple_text]\n",
                     isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    h.initialize("alice");
    EXPECT_TRUE(fixture_prompts(prompt_names(h.request("prompts/list"))).empty());
    EXPECT_EQ(error_code(h.request("prompts/get", {{"name", "test_simple_prompt"}})), -32602);
    EXPECT_EQ(error_code(h.request("completion/complete",
                                   {{"ref", {{"type", "ref/prompt"}, {"name", "test_prompt_with_arguments"}}},
                                    {"argument", {{"name", "arg1"}, {"value", "t"}}}})),
              -32602);
    h.session.reset();
    h.initialize("owner");
    EXPECT_EQ(fixture_prompts(prompt_names(h.request("prompts/list"))).size(), 4u);
}

TEST_P(McpPrompts, AReloadThatChangesThePromptsSendsListChanged) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    h.initialize();
    EXPECT_EQ(fixture_prompts(prompt_names(h.request("prompts/list"))).size(), 4u);
    std::filesystem::remove(h.home.plugins_dir() / "conformance.yaml");
    h.catalog->rescan();
    h.wait_for([](const json::object& m) { return is_notification(m, "notifications/prompts/list_changed"); });
    EXPECT_TRUE(fixture_prompts(prompt_names(h.request("prompts/list"))).empty());
}

json::object complete_request(json::object ref, std::string_view argument, std::string_view value) {
    return json::object{{"ref", std::move(ref)}, {"argument", {{"name", argument}, {"value", value}}}};
}

TEST_P(McpCompletion, PromptArgumentsCompleteFromTheirEnumAndThePluginsHook) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    h.initialize();
    const json::object prompt{{"type", "ref/prompt"}, {"name", "test_prompt_with_arguments"}};
    auto from_enum = h.request("completion/complete", complete_request(prompt, "arg1", "TE"));
    const auto& completion = from_enum.at("result").at("completion");
    EXPECT_EQ(completion.at("values"), (json::array{"test", "testing", "tested"})) << json::serialize(from_enum);
    EXPECT_EQ(completion.at("total"), 3);
    EXPECT_EQ(completion.at("hasMore"), json::value(false));
    auto from_hook = h.request("completion/complete", complete_request(prompt, "arg2", "be"));
    EXPECT_EQ(from_hook.at("result").at("completion").at("values"), (json::array{"be-suggested"}));
    auto templated =
        h.request("completion/complete",
                  complete_request({{"type", "ref/resource"}, {"uri", "test://template/{id}/data"}}, "id", "4"));
    EXPECT_EQ(templated.at("result").at("completion").at("values"), (json::array{"41", "42"}))
        << json::serialize(templated);
}

TEST_P(McpCompletion, UnknownReferencesAndMalformedRequestsAreInvalidParams) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    h.home.install_fixture("conformance");
    h.catalog->rescan();
    h.initialize();
    const json::object prompt{{"type", "ref/prompt"}, {"name", "test_prompt_with_arguments"}};
    EXPECT_EQ(error_code(h.request("completion/complete", complete_request(prompt, "nope", ""))), -32602);
    EXPECT_EQ(error_code(h.request("completion/complete",
                                   complete_request({{"type", "ref/prompt"}, {"name", "missing"}}, "a", ""))),
              -32602);
    EXPECT_EQ(error_code(h.request("completion/complete",
                                   complete_request({{"type", "ref/resource"}, {"uri", "test://none/{x}"}}, "x", ""))),
              -32602);
    EXPECT_EQ(
        error_code(h.request("completion/complete", complete_request({{"type", "ref/other"}, {"name", "x"}}, "a", ""))),
        -32602);
    EXPECT_EQ(error_code(h.request("completion/complete", {{"ref", prompt}})), -32602);
    EXPECT_EQ(error_code(h.request("completion/complete")), -32602);
    EXPECT_EQ(error_code(h.request("completion/complete", complete_request(prompt, "arg1", std::string(70000, 'v')))),
              -32602);
}

TEST_P(McpPrompts, ManifestExamplesOfTheSkillsAUserMaySeeArePrompts) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "users:\n  alice:\n    deny: [fs_write]\n", isolation());
    install_builtin_plugin(h.home, "fs");
    h.catalog->rescan();
    h.initialize();
    auto names = prompt_names(h.request("prompts/list"));
    EXPECT_NE(std::find(names.begin(), names.end(), "fs_list_example_1"), names.end()) << names.size();
    auto rendered = h.request("prompts/get", {{"name", "fs_list_example_1"}});
    const std::string text(rendered.at("result").at("messages").at(0).at("content").at("text").as_string());
    EXPECT_NE(text.find("List the workspace root"), std::string::npos) << text;
    EXPECT_NE(text.find("`fs_list`"), std::string::npos) << text;
    EXPECT_EQ(error_code(h.request("prompts/get", {{"name", "fs_list_example_99"}})), -32602);
    // Every prompt listed completes, even one without arguments (with nothing to offer).
    auto completed = h.request("completion/complete",
                               complete_request({{"type", "ref/prompt"}, {"name", "fs_list_example_1"}}, "path", "do"));
    EXPECT_EQ(completed.at("result").at("completion"),
              (json::object{{"values", json::array()}, {"total", 0}, {"hasMore", false}}))
        << json::serialize(completed);
    EXPECT_EQ(
        error_code(h.request("completion/complete",
                             complete_request({{"type", "ref/prompt"}, {"name", "fs_list_example_99"}}, "a", ""))),
        -32602);
    EXPECT_NE(std::find(names.begin(), names.end(), "fs_write_example_1"), names.end());
    // A skill the user's rules deny publishes no examples to them.
    h.session.reset();
    h.initialize("alice");
    auto alice = prompt_names(h.request("prompts/list"));
    EXPECT_EQ(std::find(alice.begin(), alice.end(), "fs_write_example_1"), alice.end());
    EXPECT_EQ(error_code(h.request("prompts/get", {{"name", "fs_write_example_1"}})), -32602);
    EXPECT_NE(std::find(alice.begin(), alice.end(), "fs_list_example_1"), alice.end());
}

// Adds a playbook learned for `user` and answers its prompt name.
std::string add_playbook(skillhost::store::GuidanceStore& store, const std::string& user, const std::string& goal,
                         std::vector<std::string> steps) {
    skillhost::store::Playbook playbook{"", user, goal, "advice for " + goal, std::move(steps), "gdn-test"};
    EXPECT_TRUE(store.add_playbook(playbook).ok());
    return "playbook_" + playbook.id;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// A playbook learned while the session is open (by a run elsewhere) is announced after the
// session's next call to a client that listed prompts.
TEST_P(McpPrompts, APlaybookLearnedDuringTheSessionSendsPromptsListChanged) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    auto store =
        skillhost::store::GuidanceStore::open(skillhost::app::storage_location(skillhost::app::parts_of(*h.rt).config));
    ASSERT_TRUE(store.ok()) << store.error().message;
    h.playbooks = std::move(store.value());
    h.initialize("owner");
    const auto before = prompt_names(h.request("prompts/list"));
    const std::string learned = add_playbook(*h.playbooks, "owner", "find the budget", {R"(echo {"text":"budget"})"});
    EXPECT_FALSE(has(before, learned));
    h.call("echo", {{"text", "anything"}});
    h.wait_for([](const json::object& m) { return is_notification(m, "notifications/prompts/list_changed"); });
    EXPECT_TRUE(has(prompt_names(h.request("prompts/list")), learned));
}

TEST_P(McpPrompts, LearnedPlaybooksArePromptsOfTheirUserWhileTheirCallsAreAllowed) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "users:\n  owner:\n    deny: [\"echo(text=secret*)\"]\n",
                     isolation());
    auto store =
        skillhost::store::GuidanceStore::open(skillhost::app::storage_location(skillhost::app::parts_of(*h.rt).config));
    ASSERT_TRUE(store.ok()) << store.error().message;
    h.playbooks = std::move(store.value());
    const std::string budget = add_playbook(*h.playbooks, "owner", "find the budget", {R"(echo {"text":"budget"})"});
    const std::string advice_only = add_playbook(*h.playbooks, "owner", "plan the week", {});
    const std::string denied = add_playbook(*h.playbooks, "owner", "tell the secret", {R"(echo {"text":"secret x"})"});
    const std::string gone = add_playbook(*h.playbooks, "owner", "use a removed skill", {"no_such_skill {}"});
    const std::string alices = add_playbook(*h.playbooks, "alice", "water the garden", {R"(echo {"text":"water"})"});
    h.initialize("owner");

    auto names = prompt_names(h.request("prompts/list"));
    EXPECT_TRUE(has(names, budget)) << names.size();
    EXPECT_TRUE(has(names, advice_only));
    EXPECT_FALSE(has(names, denied));
    EXPECT_FALSE(has(names, gone));
    EXPECT_FALSE(has(names, alices));
    auto rendered = h.request("prompts/get", {{"name", budget}});
    const std::string text(rendered.at("result").at("messages").at(0).at("content").at("text").as_string());
    EXPECT_NE(text.find("find the budget"), std::string::npos) << text;
    EXPECT_NE(text.find("advice for find the budget"), std::string::npos) << text;
    EXPECT_NE(text.find(R"(echo {"text":"budget"})"), std::string::npos) << text;
    for (const std::string& hidden : {denied, gone, alices, std::string("playbook_pbk-unknown")}) {
        EXPECT_EQ(error_code(h.request("prompts/get", {{"name", hidden}})), -32602) << hidden;
        EXPECT_EQ(error_code(h.request("completion/complete",
                                       complete_request({{"type", "ref/prompt"}, {"name", hidden}}, "goal", ""))),
                  -32602)
            << hidden;
    }
    auto completed =
        h.request("completion/complete", complete_request({{"type", "ref/prompt"}, {"name", budget}}, "goal", "f"));
    EXPECT_EQ(completed.at("result").at("completion").at("values"), json::array()) << json::serialize(completed);

    // Alice sees her own playbook only.
    h.session.reset();
    h.initialize("alice");
    auto hers = prompt_names(h.request("prompts/list"));
    EXPECT_TRUE(has(hers, alices));
    EXPECT_FALSE(has(hers, budget));
    EXPECT_EQ(error_code(h.request("prompts/get", {{"name", budget}})), -32602);
    EXPECT_NE(json::serialize(h.request("prompts/get", {{"name", alices}})).find("water the garden"),
              std::string::npos);
}

// A memory stored during the session is announced to a client that listed resources, between
// reloads; a burst of them is coalesced rather than one notification each.
TEST_P(McpResources, AMemoryCapturedDuringTheSessionSendsResourcesListChanged) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", isolation());
    install_builtin_plugin(h.home, "memory");
    h.catalog->rescan();
    h.initialize("owner");
    const std::string unlisted = captured_uri(h.call("memory_capture", {{"text", "Before any listing"}}));
    const auto before = memory_uris(h.request("resources/list"));
    EXPECT_TRUE(before.contains(unlisted));

    const std::string added = captured_uri(h.call("memory_capture", {{"text", "Call Dana about the roadmap"}}));
    EXPECT_FALSE(before.contains(added));
    h.wait_for([](const json::object& m) { return is_notification(m, "notifications/resources/list_changed"); });
    EXPECT_TRUE(memory_uris(h.request("resources/list")).contains(added));

    constexpr int kBurst = 6;
    for (int i = 0; i < kBurst; ++i) h.call("memory_capture", {{"text", "Burst note " + std::to_string(i)}});
    h.wait_for([](const json::object& m) { return is_notification(m, "notifications/resources/list_changed"); });
    EXPECT_EQ(memory_uris(h.request("resources/list")).size(), before.size() + 1 + kBurst);
}

// Requests while a look runs fold into one more look after it: a busy session is not flooded, and
// the last change is still seen.
TEST(ListChangeWatch, RequestsDuringALookFoldIntoOneMoreLook) {
    skillhost::mcp::CallRunner runner(2);
    std::mutex mutex;
    std::condition_variable changed;
    int looks = 0;
    bool release = false;
    skillhost::mcp::ListChangeWatch watch(runner, std::chrono::milliseconds(0), [&] {
        std::unique_lock lock(mutex);
        ++looks;
        changed.notify_all();
        changed.wait(lock, [&] { return release; });
    });
    watch.request();
    {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(changed.wait_for(lock, kWait, [&] { return looks == 1; }));
    }
    for (int i = 0; i < 20; ++i) watch.request();
    {
        std::lock_guard lock(mutex);
        release = true;
        changed.notify_all();
    }
    {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(changed.wait_for(lock, kWait, [&] { return looks == 2; }));
    }
    watch.stop();
    runner.shutdown();
    EXPECT_EQ(looks, 2);
    watch.request();  // stopped: no look
    EXPECT_EQ(looks, 2);
}

INSTANTIATE_TEST_SUITE_P(Isolation, McpResources, ::testing::Values("in_process", "process"),
                         [](const auto& param_info) { return param_info.param; });
INSTANTIATE_TEST_SUITE_P(Isolation, McpPrompts, ::testing::Values("in_process", "process"),
                         [](const auto& param_info) { return param_info.param; });
INSTANTIATE_TEST_SUITE_P(Isolation, McpCompletion, ::testing::Values("in_process", "process"),
                         [](const auto& param_info) { return param_info.param; });

// ---- Resources and prompts of a misbehaving isolated plugin (process mode only: in the host its
// crashes would end the test) ----

std::string error_data_code(const json::object& response) {
    return std::string(response.at("error").at("data").at("code").as_string());
}

TEST(McpIsolatedPublishing, APluginCrashingInARequestIsAnErrorAndTheNextRequestWorks) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "", "isolation:\n  mode: process\n");
    h.home.install_fixture("hostile");
    h.catalog->rescan();
    h.initialize();
    auto crashed = h.request("resources/read", {{"uri", "hostile://segfault"}});
    EXPECT_EQ(error_code(crashed), -32603) << json::serialize(crashed);
    EXPECT_EQ(error_data_code(crashed), "PLUGIN_CRASHED");
    EXPECT_EQ(crashed.at("error").at("data").at("details").at("entry"), "resources read()");
    auto fine = h.request("resources/read", {{"uri", "hostile://fine"}});
    EXPECT_EQ(fine.at("result").at("contents").at(0).at("text"), "fine") << json::serialize(fine);
    EXPECT_EQ(resource_uris(h.request("resources/list")), std::set<std::string>{"hostile://fine"});

    auto aborted = h.request("prompts/get", {{"name", "abort"}});
    EXPECT_EQ(error_code(aborted), -32603) << json::serialize(aborted);
    EXPECT_EQ(error_data_code(aborted), "PLUGIN_CRASHED");
    auto huge = h.request("prompts/get", {{"name", "huge"}});
    EXPECT_EQ(error_data_code(huge), "RESULT_TOO_LARGE") << json::serialize(huge);
    auto rendered = h.request("prompts/get", {{"name", "fine"}});
    EXPECT_EQ(rendered.at("result").at("messages").at(0).at("content").at("text"), "fine") << json::serialize(rendered);
}

TEST(McpIsolatedPublishing, AHostileRunnersGarbageIsAnErrorAndItsListingIsLeftOut) {
    SessionHarness h(skillhost::testing::kDefaultUsers, "",
                     std::string("isolation:\n  mode: process\n  runner: ") + SKILLHOST_HOSTILE_RUNNER + "\n");
    skillhost::testing::write_file(h.home.plugins_dir() / "runner-mode", "garbage");
    h.home.install_fixture("hostile");
    h.catalog->rescan();
    h.initialize();
    auto read = h.request("resources/read", {{"uri", "hostile://fine"}});
    EXPECT_EQ(error_code(read), -32603) << json::serialize(read);
    EXPECT_EQ(error_data_code(read), "RUNNER_PROTOCOL_ERROR");
    EXPECT_TRUE(resource_uris(h.request("resources/list")).empty());
    EXPECT_TRUE(fixture_prompts(prompt_names(h.request("prompts/list"))).empty());
    // Its skills still answer through the same runner.
    auto called = h.call("ok");
    EXPECT_FALSE(called.at("result").at("isError").as_bool()) << json::serialize(called);
}
