// The hostile plugin loaded by the real `skillhost` binary: every misbehaviour, called over HTTP,
// MCP and the CLI, ends with a structured error while the daemon keeps serving other calls (a
// healthy isolated plugin included); crashes are audited and counted; quarantine takes the plugin's
// skills out of the catalog and installing a new version brings them back.
#include "daemon_process.hpp"
#include "support/subprocess.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

namespace skillhost::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::AnyOf;
using ::testing::HasSubstr;

void install_fixture(const std::string& fixture, const fs::path& plugins_dir) {
    const fs::path source = fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / fixture;
    for (const auto& entry : fs::directory_iterator(source))
        if (entry.is_regular_file())
            fs::copy_file(entry.path(), plugins_dir / entry.path().filename(), fs::copy_options::overwrite_existing);
}

DaemonSetup hostile_setup(int crash_limit) {
    DaemonSetup setup;
    // Top-level keys after `server:`'s lines.
    setup.server_yaml = "isolation:\n  crash_limit: " + std::to_string(crash_limit) +
                        "\n  kill_grace_ms: 300\n  restart_backoff_ms: 1\n  max_result_bytes: 1048576\n";
    return setup;
}

struct Misbehaviour {
    const char* skill;
    std::vector<std::string> codes;  // any of these is a correct structured answer
};

const std::vector<Misbehaviour>& misbehaviours() {
    static const std::vector<Misbehaviour> all{
        {"segfault", {"PLUGIN_CRASHED"}},
        {"abort", {"PLUGIN_CRASHED"}},
        {"exit", {"PLUGIN_CRASHED"}},
        {"stack_overflow", {"PLUGIN_CRASHED"}},
        {"sigkill", {"PLUGIN_CRASHED"}},
        {"invalid_json", {"PLUGIN_INVALID_RESULT"}},
        {"no_result", {"PLUGIN_NO_RESULT"}},
        {"huge_result", {"RESULT_TOO_LARGE"}},
        {"hang", {"TIMEOUT", "PLUGIN_KILLED"}},
        {"busy_loop", {"TIMEOUT", "PLUGIN_KILLED"}},
        {"leak", {"TIMEOUT", "PLUGIN_KILLED"}},
        // "": it survived and answered. PLUGIN_KILLED: it ran in the runner still holding `leak`,
        // which ignored its deadline and is killed kill_grace later (a memory cgroup lets a leak
        // run until then, where RLIMIT_AS ended it sooner).
        {"write_host_context", {"PLUGIN_CRASHED", "", "PLUGIN_KILLED"}},
        // the 13th: a crash while another call of the same runner is running is covered below
    };
    return all;
}

std::string call_code(const HttpResult& r) {
    if (r.status != 200) return "HTTP " + std::to_string(r.status) + ": " + r.body;
    try {
        const json::value parsed = r.json();
        const auto& body = parsed.as_object();
        if (body.at("ok").as_bool()) return "";
        return std::string(body.at("error").at("code").as_string());
    } catch (const std::exception& e) {
        return std::string("unreadable answer (") + e.what() + "): " + r.body.substr(0, 300);
    }
}

TEST(HostileDaemon, EveryMisbehaviourEndsInAStructuredErrorWhileOtherCallsGoOn) {
    DaemonProcess d(hostile_setup(1000));
    install_fixture("hostile", d.plugins_dir());
    d.start();

    // A healthy isolated plugin (echo) answers all the time, concurrently.
    std::atomic<bool> stop{false};
    std::atomic<int> healthy_ok{0}, healthy_failed{0};
    std::thread healthy([&] {
        while (!stop.load()) {
            auto r = d.post("/v1/skills/echo/call", R"({"args":{"text":"still here"}})", "alice");
            bool ok = false;
            try {
                ok = r.status == 200 && r.json().at("ok").as_bool();
            } catch (const std::exception& e) {
                ADD_FAILURE() << "healthy call answered " << r.status << " " << r.body << " (" << e.what() << ")";
            }
            (ok ? healthy_ok : healthy_failed)++;
        }
    });
    // Whatever fails below (an ASSERT, an exception), the thread is stopped and joined: a joinable
    // thread destroyed while unwinding would abort the whole test binary instead of reporting.
    struct StopAndJoin {
        std::atomic<bool>& stop;
        std::thread& thread;
        ~StopAndJoin() {
            stop.store(true);
            if (thread.joinable()) thread.join();
        }
    } stop_and_join{stop, healthy};

    for (const auto& m : misbehaviours()) {
        SCOPED_TRACE(m.skill);
        auto r = d.post(std::string("/v1/skills/") + m.skill + "/call", R"({"args":{}})", "owner");
        const std::string code = call_code(r);
        EXPECT_NE(std::find(m.codes.begin(), m.codes.end(), code), m.codes.end()) << r.body;
        if (code == "PLUGIN_CRASHED") {
            const json::value body = r.json();
            const auto& details = body.at("error").at("details");
            EXPECT_EQ(details.at("skill").as_string(), m.skill);
            EXPECT_EQ(details.at("plugin").as_string(), "hostile");
        }
        // The plugin answers again right after (for another user: owner's runner may still be
        // waiting for the kill of a call that ignored its deadline).
        EXPECT_EQ(call_code(d.post("/v1/skills/ok/call", R"({"args":{}})", "alice")), "");
    }

    // A crash while another call runs in the same runner ends both, structured.
    std::thread slow_call([&] {
        auto r = d.post("/v1/skills/slow_ok/call", R"({"args":{}})", "owner");
        EXPECT_THAT(call_code(r), AnyOf(::testing::Eq(""), ::testing::Eq("PLUGIN_CRASHED")));
    });
    EXPECT_EQ(call_code(d.post("/v1/skills/segfault/call", R"({"args":{}})", "owner")), "PLUGIN_CRASHED");
    slow_call.join();

    stop.store(true);
    if (healthy.joinable()) healthy.join();
    EXPECT_GT(healthy_ok.load(), 0);
    EXPECT_EQ(healthy_failed.load(), 0);
    EXPECT_EQ(d.get("/healthz", "").status, 200);

    // Crashes are counted and audited.
    auto metrics = d.get("/metrics", "");
    EXPECT_THAT(metrics.body, HasSubstr("skillhost_plugin_crashes_total"));
    EXPECT_THAT(metrics.body, ::testing::Not(HasSubstr("skillhost_plugin_crashes_total 0\n")));
    EXPECT_THAT(metrics.body, ::testing::ContainsRegex("skillhost_plugin_crashes_total\\{plugin=\"hostile\"\\} [1-9]"));
    EXPECT_THAT(metrics.body,
                ::testing::ContainsRegex("skillhost_plugin_runner_resident_bytes\\{plugin=\"hostile\"\\} "));
    auto audit = d.get("/v1/audit?kind=plugin_supervision", "owner");
    ASSERT_EQ(audit.status, 200) << audit.body;
    EXPECT_THAT(audit.body, HasSubstr("PLUGIN_CRASHED"));
    EXPECT_THAT(audit.body, HasSubstr("PLUGIN_KILLED"));
    // Every call is in the audit log too, each with its error.
    auto calls = d.get("/v1/audit?kind=skill_call&skill=segfault", "owner");
    ASSERT_EQ(calls.status, 200);
    EXPECT_THAT(calls.body, HasSubstr("PLUGIN_CRASHED"));

    // /readyz says how each plugin runs and what its sandbox enforces.
    auto ready = d.get("/readyz", "");
    const json::value ready_body = ready.json();
    const auto& isolation = ready_body.at("checks").at("isolation");
    bool saw_hostile = false;
    for (const auto& p : isolation.at("plugins").as_array()) {
        if (p.at("plugin").as_string() != "hostile") continue;
        saw_hostile = true;
        EXPECT_EQ(p.at("mode").as_string(), "process");
        EXPECT_TRUE(p.at("sandbox").is_object());
    }
    EXPECT_TRUE(saw_hostile);
}

TEST(HostileDaemon, McpCallsOfACrashingSkillAnswerAnErrorResult) {
    DaemonProcess d(hostile_setup(1000));
    install_fixture("hostile", d.plugins_dir());
    d.start();
    auto post = [&](const json::object& body, const std::string& session) {
        RequestSpec spec{
            "POST", "/mcp", json::serialize(body), DaemonProcess::token("owner"), {{"Accept", "application/json"}}};
        if (!session.empty()) spec.headers.emplace_back("Mcp-Session-Id", session);
        return http_request(d.port(), spec);
    };
    auto init = post({{"jsonrpc", "2.0"},
                      {"id", 1},
                      {"method", "initialize"},
                      {"params",
                       {{"protocolVersion", "2025-06-18"},
                        {"capabilities", json::object()},
                        {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}},
                     "");
    ASSERT_EQ(init.status, 200) << init.body;
    const std::string session = init.headers["mcp-session-id"];
    post({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, session);
    for (const char* skill : {"segfault", "sigkill", "ok"}) {
        auto r = post({{"jsonrpc", "2.0"},
                       {"id", 2},
                       {"method", "tools/call"},
                       {"params", {{"name", skill}, {"arguments", json::object()}}}},
                      session);
        ASSERT_EQ(r.status, 200) << r.body;
        const json::value body = r.json();
        const auto& result = body.at("result");
        const bool crashed = std::string(skill) != "ok";
        EXPECT_EQ(result.at("isError").as_bool(), crashed) << r.body;
        if (crashed) {
            EXPECT_THAT(json::serialize(result), HasSubstr("PLUGIN_CRASHED"));
        }
    }
    // tools/list carries what each plugin may touch.
    auto list = post({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}}, session);
    EXPECT_THAT(list.body, HasSubstr("skillhost/permissions"));
}

TEST(HostileDaemon, RepeatedCrashesQuarantineAndANewVersionLiftsIt) {
    DaemonProcess d(hostile_setup(3));
    install_fixture("hostile", d.plugins_dir());
    d.start();
    EXPECT_EQ(call_code(d.post("/v1/skills/segfault/call", R"({"args":{}})", "owner")), "PLUGIN_CRASHED");
    // Before the limit, the plugin list shows the plugin isolated, its sandbox and its crash count.
    {
        auto listed = d.get("/v1/skills?all=true", "owner");
        ASSERT_EQ(listed.status, 200) << listed.body;
        const json::value body = listed.json();
        const json::object* hostile = nullptr;
        for (const auto& p : body.at("plugins").as_array())
            if (p.at("name").as_string() == "hostile") hostile = &p.as_object();
        ASSERT_NE(hostile, nullptr) << listed.body;
        EXPECT_EQ(hostile->at("isolation").as_string(), "process");
        EXPECT_TRUE(hostile->at("sandbox").is_object());
        EXPECT_EQ(hostile->at("supervision").at("crashes").to_number<int>(), 1) << listed.body;
        EXPECT_EQ(hostile->at("supervision").at("crash_limit").to_number<int>(), 3) << listed.body;
    }
    for (int i = 0; i < 2; ++i)
        EXPECT_EQ(call_code(d.post("/v1/skills/segfault/call", R"({"args":{}})", "owner")), "PLUGIN_CRASHED");

    // The catalog is rebuilt without the plugin, which is listed among the failures with the reason.
    bool gone = false;
    for (int i = 0; i < 1000 && !gone; ++i) {
        auto skills = d.get("/v1/skills?all=true", "owner");
        gone = skills.body.find("\"segfault\"") == std::string::npos &&
               skills.body.find("PLUGIN_QUARANTINED") != std::string::npos;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(gone) << d.get("/v1/skills?all=true", "owner").body;
    auto refused = d.post("/v1/skills/ok/call", R"({"args":{}})", "owner");
    EXPECT_TRUE(refused.status == 404 || call_code(refused) == "SKILL_NOT_FOUND") << refused.body;
    EXPECT_EQ(call_code(d.post("/v1/skills/echo/call", R"({"args":{"text":"x"}})", "owner")), "");

    // Installing the plugin again (a new file) is a new version: the quarantine is lifted.
    const fs::path library = d.plugins_dir() / "libhostile.so";
    const fs::path staged = d.plugins_dir() / "libhostile.so.new";
    fs::copy_file(fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "hostile" / "libhostile.so", staged);
    fs::rename(staged, library);
    bool back = false;
    for (int i = 0; i < 1000 && !back; ++i) {
        back = call_code(d.post("/v1/skills/ok/call", R"({"args":{}})", "owner")) == "";
        if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(back);
}

TEST(HostileCli, CallsAndPluginCheckReportCrashesInsteadOfCrashing) {
    TempDir dir{"skillhost-hostile-cli"};
    const fs::path plugins = dir.path() / "plugins";
    fs::create_directories(plugins);
    install_fixture("hostile", plugins);
    const fs::path config = dir.path() / "skillhost.yaml";
    {
        std::ofstream out(config);
        out << "plugin_dirs: [" << plugins.string() << "]\nisolation:\n  kill_grace_ms: 300\n";
    }
    const std::vector<std::string> base{SKILLHOST_BINARY, "--config", config.string(), "--home",
                                        (dir.path() / "home").string()};
    auto with = [&](std::vector<std::string> args) {
        std::vector<std::string> argv = base;
        argv.insert(argv.end(), args.begin(), args.end());
        return run_process(argv);
    };
    auto crashed = with({"call", "segfault", "--json"});
    EXPECT_EQ(crashed.signal, 0);
    EXPECT_NE(crashed.exit_code, 0);
    EXPECT_THAT(crashed.out + crashed.err, HasSubstr("PLUGIN_CRASHED"));

    auto ok = with({"call", "ok", "--json"});
    EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;

    auto check = run_process({SKILLHOST_BINARY, "--config", config.string(), "--home", (dir.path() / "home").string(),
                              "plugin", "check", (plugins / "hostile.yaml").string()},
                             {}, {}, 300000);
    EXPECT_EQ(check.signal, 0) << check.err;
    EXPECT_NE(check.exit_code, 0);  // the plugin fails its check ...
    const std::string report = check.out + check.err;
    for (const char* skill : {"segfault", "abort", "exit", "sigkill", "stack_overflow"})
        EXPECT_THAT(report, HasSubstr(skill));  // ... with each crashing skill named
    EXPECT_THAT(report, HasSubstr("crashed"));
}

}  // namespace
}  // namespace skillhost::testing
