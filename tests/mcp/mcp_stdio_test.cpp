// `skillhost mcp` as a client runs it: a subprocess speaking newline-delimited JSON-RPC on
// stdin/stdout, with a live catalog over a temp plugin directory.
#include "mcp_client_process.hpp"
#include "mcp_fixture_home.hpp"
#include "support/subprocess.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using skillhost::testing::InteractiveProcess;
using skillhost::testing::McpFixtureHome;

constexpr auto kWait = 10s;

class McpStdioTest : public ::testing::Test {
protected:
    McpFixtureHome home;

    void SetUp() override { home.install_fixture("echo"); }

    std::unique_ptr<InteractiveProcess> start(std::vector<std::string> extra = {}) {
        std::vector<std::string> argv{SKILLHOST_MCP_PROBE, "mcp",    "--config",
                                      home.config_file(),  "--home", home.home_dir()};
        argv.insert(argv.end(), extra.begin(), extra.end());
        return std::make_unique<InteractiveProcess>(
            argv, std::map<std::string, std::string>{{"SKILLHOST_LOG_LEVEL", "debug"}});
    }

    // Every line on stdout must be a JSON-RPC message; returns the next one.
    static json::object next(InteractiveProcess& p) {
        auto line = p.read_line(kWait);
        if (!line) {
            ADD_FAILURE() << "no message from skillhost mcp; stderr:\n" << p.stderr_text();
            return {};
        }
        json::error_code ec;
        auto v = json::parse(*line, ec);
        if (ec || !v.is_object() || v.as_object().at("jsonrpc") != "2.0") {
            ADD_FAILURE() << "stdout line is not a JSON-RPC message: " << *line;
            return {};
        }
        return v.as_object();
    }

    // The response to `id`, skipping notifications (collected into `notifications`).
    static json::object response(InteractiveProcess& p, std::int64_t id,
                                 std::vector<json::object>* notifications = nullptr) {
        for (int i = 0; i < 100; ++i) {
            auto m = next(p);
            if (m.empty()) return m;
            if (const auto* v = m.if_contains("id"); v && v->is_int64() && v->as_int64() == id) return m;
            if (notifications) notifications->push_back(m);
        }
        ADD_FAILURE() << "no response to " << id;
        return {};
    }

    static void send(InteractiveProcess& p, std::int64_t id, std::string_view method, json::object params = {}) {
        p.write_line(json::serialize(
            json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}));
    }

    static void initialize(InteractiveProcess& p, json::object capabilities = {}) {
        send(p, 1, "initialize",
             {{"protocolVersion", "2025-06-18"},
              {"capabilities", std::move(capabilities)},
              {"clientInfo", {{"name", "stdio-test"}, {"version", "1"}}}});
        auto r = response(p, 1);
        ASSERT_EQ(r.at("result").at("protocolVersion").as_string(), "2025-06-18") << json::serialize(r);
        p.write_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    }

    static std::set<std::string> tool_names(const json::object& list_response) {
        std::set<std::string> names;
        for (const auto& t : list_response.at("result").at("tools").as_array()) names.emplace(t.at("name").as_string());
        return names;
    }
};

TEST_F(McpStdioTest, InitializeListAndCallOverStdioThenEofEndsTheServer) {
    auto p = start({"--user", "owner"});
    initialize(*p);
    send(*p, 2, "tools/list");
    auto list = response(*p, 2);
    EXPECT_TRUE(tool_names(list).contains("add")) << json::serialize(list);
    send(*p, 3, "tools/call", {{"name", "add"}, {"arguments", {{"a", 20}, {"b", 22}}}});
    auto call = response(*p, 3);
    EXPECT_EQ(call.at("result").at("structuredContent").at("sum").to_number<int>(), 42) << json::serialize(call);
    p->write_line("this is not json");
    auto parse_error = next(*p);
    EXPECT_EQ(parse_error.at("error").at("code").to_number<int>(), -32700);
    EXPECT_EQ(p->close_and_wait(kWait), 0) << p->stderr_text();
    EXPECT_NE(p->stderr_text().find("mcp:"), std::string::npos) << "logs go to stderr";
}

// A call runs on the thread that read it; once it runs long, another thread reads on, so pings and
// notifications/cancelled still get through while a slow skill holds the first thread.
TEST_F(McpStdioTest, WhileASlowCallRunsTheServerKeepsReadingAndCancelsIt) {
    auto p = start();
    initialize(*p);
    send(*p, 2, "tools/call", {{"name", "sleep"}, {"arguments", {{"ms", 30000}}}});
    std::vector<json::object> others;
    send(*p, 3, "ping");
    auto ping = response(*p, 3, &others);
    EXPECT_TRUE(ping.contains("result")) << json::serialize(ping);
    p->write_line(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}})");
    send(*p, 4, "tools/call", {{"name", "add"}, {"arguments", {{"a", 1}, {"b", 2}}}});
    auto add = response(*p, 4, &others);
    EXPECT_EQ(add.at("result").at("structuredContent").at("sum").to_number<int>(), 3) << json::serialize(add);
    // A slow call still running when the input ends does not keep the server alive.
    send(*p, 5, "tools/call", {{"name", "sleep"}, {"arguments", {{"ms", 30000}}}});
    send(*p, 6, "ping");
    EXPECT_TRUE(response(*p, 6, &others).contains("result"));
    EXPECT_EQ(p->close_and_wait(kWait), 0) << p->stderr_text();
    for (const auto& m : others) EXPECT_FALSE(m.contains("id")) << "answered: " << json::serialize(m);
}

TEST_F(McpStdioTest, PagesAsConfiguredWithPageSize) {
    auto p = start({"--page-size", "5"});
    initialize(*p);
    send(*p, 2, "tools/list");
    auto first = response(*p, 2);
    EXPECT_EQ(first.at("result").at("tools").as_array().size(), 5u);
    ASSERT_TRUE(first.at("result").as_object().contains("nextCursor"));
    send(*p, 3, "tools/list", {{"cursor", first.at("result").at("nextCursor")}});
    auto second = response(*p, 3);
    EXPECT_EQ(second.at("result").at("tools").as_array().size(), 5u);
    EXPECT_EQ(p->close_and_wait(kWait), 0);
}

TEST_F(McpStdioTest, InstallingAPluginDuringTheSessionSendsListChanged) {
    auto p = start();
    initialize(*p);
    send(*p, 2, "tools/list");
    EXPECT_FALSE(tool_names(response(*p, 2)).contains("upper"));

    home.install_fixture("plain_c");
    bool changed = false;
    for (int i = 0; i < 20 && !changed; ++i) {
        auto m = next(*p);
        if (m.empty()) break;
        changed = m.contains("method") && m.at("method") == "notifications/tools/list_changed";
    }
    ASSERT_TRUE(changed) << p->stderr_text();
    send(*p, 3, "tools/list");
    EXPECT_TRUE(tool_names(response(*p, 3)).contains("upper"));
    EXPECT_EQ(p->close_and_wait(kWait), 0);
}

// A memory captured during the session reaches a client that listed resources as
// notifications/resources/list_changed (no reload involved: the memory plugin's list changed).
TEST_F(McpStdioTest, AMemoryCapturedDuringTheSessionSendsResourcesListChanged) {
    const std::filesystem::path builtins(SKILLHOST_BUILTIN_PLUGIN_DIR);
    for (const char* file : {"libskillhost_memory.so", "memory.yaml"})
        std::filesystem::copy_file(builtins / file, home.plugins_dir() / file);
    auto p = start({"--user", "owner"});
    initialize(*p);
    send(*p, 2, "resources/list");
    const std::string before = json::serialize(response(*p, 2));
    send(*p, 3, "tools/call", {{"name", "memory_capture"}, {"arguments", {{"text", "Call Dana about the roadmap"}}}});
    std::vector<json::object> notes;
    auto captured = response(*p, 3, &notes);
    ASSERT_TRUE(captured.contains("result")) << json::serialize(captured);
    const std::string uri =
        "memory://" + std::to_string(captured.at("result").at("structuredContent").at("memory").at("id").as_int64());
    EXPECT_EQ(before.find("\"" + uri + "\""), std::string::npos);
    const auto is_change = [](const json::object& m) {
        return m.contains("method") && m.at("method") == "notifications/resources/list_changed";
    };
    bool changed = std::any_of(notes.begin(), notes.end(), is_change);
    for (int i = 0; i < 20 && !changed; ++i) {
        auto m = next(*p);
        if (m.empty()) break;
        changed = is_change(m);
    }
    ASSERT_TRUE(changed) << p->stderr_text();
    send(*p, 4, "resources/list");
    EXPECT_NE(json::serialize(response(*p, 4)).find("\"" + uri + "\""), std::string::npos);
    EXPECT_EQ(p->close_and_wait(kWait), 0);
}

TEST_F(McpStdioTest, TheClientIsAskedForApprovalAndApprovingRunsTheCall) {
    auto p = start({"--user", "alice"});  // supervised_auto: `fail` (medium risk, not read-only) needs approval
    initialize(*p, {{"elicitation", json::object()}});
    send(*p, 2, "tools/call",
         {{"name", "fail"}, {"arguments", {{"reason", "approved failure"}}}, {"_meta", {{"progressToken", 7}}}});
    auto ask = next(*p);
    ASSERT_EQ(ask.at("method"), "elicitation/create") << json::serialize(ask);
    p->write_line(
        json::serialize(json::object{{"jsonrpc", "2.0"},
                                     {"id", ask.at("id")},
                                     {"result", {{"action", "accept"}, {"content", {{"decision", "approve"}}}}}}));
    auto r = response(*p, 2);
    // The skill really ran: its own failure comes back, not APPROVAL_REQUIRED.
    EXPECT_EQ(r.at("result").at("_meta").at("skillhost/error").at("code").as_string(), "ECHO_FAILED")
        << json::serialize(r);
    EXPECT_EQ(p->close_and_wait(kWait), 0);
}

TEST_F(McpStdioTest, ProgressNotificationsPrecedeTheResponse) {
    auto p = start();
    initialize(*p);
    send(*p, 2, "tools/call", {{"name", "progress"}, {"arguments", json::object()}, {"_meta", {{"progressToken", 7}}}});
    std::vector<json::object> notifications;
    auto r = response(*p, 2, &notifications);
    EXPECT_EQ(r.at("result").at("isError"), json::value(false));
    ASSERT_EQ(notifications.size(), 3u);
    for (std::size_t i = 0; i < notifications.size(); ++i) {
        EXPECT_EQ(notifications[i].at("method"), "notifications/progress");
        EXPECT_EQ(notifications[i].at("params").at("progressToken"), json::value(7));
        EXPECT_EQ(notifications[i].at("params").at("progress").to_number<double>(), static_cast<double>(i + 1));
    }
    EXPECT_EQ(p->close_and_wait(kWait), 0);
}

TEST_F(McpStdioTest, AnUnknownUserIsRefusedOnStderrWithNothingOnStdout) {
    auto p = start({"--user", "mallory"});
    EXPECT_FALSE(p->read_line(kWait).has_value()) << "stdout carries only MCP messages";
    EXPECT_EQ(p->close_and_wait(kWait), 1);
    EXPECT_NE(p->stderr_text().find("USER_NOT_FOUND"), std::string::npos) << p->stderr_text();
}

// A line past the 64 MiB line limit is answered as one parse error without holding the whole line,
// and the session goes on with the next line.
TEST_F(McpStdioTest, AnOversizedLineIsOneParseErrorAndTheSessionGoesOn) {
    auto p = start();
    initialize(*p);
    p->write_line(R"({"jsonrpc":"2.0","id":5,"method":"ping","params":{"pad":")" +
                  std::string((64u << 20) + 4096, 'x') + "\"}}");
    auto refused = next(*p);
    ASSERT_TRUE(refused.contains("error")) << json::serialize(refused) << p->stderr_text().substr(0, 2000);
    EXPECT_EQ(refused.at("error").at("code").to_number<int>(), -32700) << json::serialize(refused);
    EXPECT_TRUE(refused.at("id").is_null()) << "the id of a line that was cut is unknown";
    send(*p, 6, "ping");
    auto pong = response(*p, 6);
    EXPECT_TRUE(pong.contains("result")) << json::serialize(pong);
    EXPECT_EQ(p->close_and_wait(kWait), 0) << p->stderr_text();
}

// The official TypeScript SDK client (npm @modelcontextprotocol/sdk) against the real server:
// connect, paginated tools/list, tools/call, list_changed after installing a plugin.
TEST_F(McpStdioTest, TheOfficialTypeScriptSdkClientConnectsListsCallsAndSeesListChanged) {
    auto r = skillhost::testing::run_process(
        {"/bin/sh", SKILLHOST_MCP_SDK_SCRIPT, SKILLHOST_MCP_SDK_CACHE, SKILLHOST_MCP_SDK_CLIENT, SKILLHOST_MCP_PROBE,
         home.config_file(), home.home_dir(), home.plugins_dir().string(),
         std::string(SKILLHOST_TEST_FIXTURES_BINARY_DIR) + "/plain_c"},
        {}, {}, 100000);  // below ctest's 120 s, so a hang reports its output
    if (r.exit_code == 77) GTEST_SKIP() << "node or npm is not installed (outside CI only): " << r.err;
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out << r.err;
}

// The official TypeScript SDK client with sampling and elicitation handlers, against the `rich`
// fixture in a plugin runner: content items, tool logs, sampling and a skill's elicitation.
TEST_F(McpStdioTest, TheOfficialSdkClientSeesContentLogsSamplingAndElicitation) {
    home.install_fixture("rich");
    const std::string script = std::string(SKILLHOST_MCP_SDK_CLIENT);
    const std::string client = script.substr(0, script.rfind('/')) + "/call_services.mjs";
    auto r = skillhost::testing::run_process({"/bin/sh", SKILLHOST_MCP_SDK_SCRIPT, SKILLHOST_MCP_SDK_CACHE, client,
                                              SKILLHOST_MCP_PROBE, home.config_file(), home.home_dir()},
                                             {}, {}, 100000);
    if (r.exit_code == 77) GTEST_SKIP() << "node or npm is not installed (outside CI only): " << r.err;
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out << r.err;
}

}  // namespace
