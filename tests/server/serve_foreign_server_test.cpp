// A foreign MCP server's tools through the real daemon's HTTP API (issue 37): called as alice,
// held for approval when the declaration says nothing of a tool, refused by a deny rule before the
// server sees the call, one server process per user, and a server that crashes touches neither
// the native skills nor the daemon.
#include "daemon_process.hpp"

#include "fixtures/fixture_support.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
namespace json = boost::json;
namespace fs = std::filesystem;

class ServeForeignServer : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        DaemonSetup setup;
        setup.policy_yaml = "global:\n  deny:\n    - \"fixture__echo(message=classified*)\"\n";
        daemon_ = new DaemonProcess(setup);
        const std::string server = (test::fixture_dir("foreign_mcp") / "skillhost_fixture_mcp_server").string();
        write_file(daemon_->plugins_dir() / "fixture.yaml",
                   "kind: mcp_server\nname: fixture\ntransport: stdio\ncommand: " + server +
                       "\nargs: [--log, \"${data_dir}/received.log\"]\nskills:\n"
                       "  - {id: echo, risk: low, min_trust: observe, requires_approval: false}\n"
                       "  - {id: env, risk: low, min_trust: observe, requires_approval: false}\n"
                       "  - {id: read_paths, risk: low, min_trust: observe, requires_approval: false}\n"
                       "  - {id: probe, risk: low, min_trust: observe, requires_approval: false}\n");
        write_file(daemon_->plugins_dir() / "crashy.yaml",
                   "kind: mcp_server\nname: crashy\ntransport: stdio\ncommand: " + server +
                       "\nargs: [--crash-on-call, \"1\"]\n"
                       "skills:\n  - {id: echo, risk: low, min_trust: observe, requires_approval: false}\n");
        write_file(daemon_->plugins_dir() / "asker.yaml",
                   "kind: mcp_server\nname: asker\ntransport: stdio\ncommand: " + server +
                       "\nargs: [--elicit]\n"
                       "skills:\n  - {id: ask_user, risk: low, min_trust: observe, requires_approval: false}\n");
        write_file(daemon_->plugins_dir() / "changing.yaml",
                   "kind: mcp_server\nname: changing\ntransport: stdio\ncommand: " + server +
                       "\nargs: [--change-after-list]\n"
                       "skills:\n  - {id: echo, risk: low, min_trust: observe, requires_approval: false}\n");
        write_file(daemon_->plugins_dir() / "growing.yaml",
                   "kind: mcp_server\nname: growing\ntransport: stdio\ncommand: " + server +
                       "\nargs: [--add-tool-after-call, \"1\"]\n"
                       "defaults: {risk: low, min_trust: observe, requires_approval: false}\n");
        daemon_->start();
        // Servers start beside the catalog (the daemon serves meanwhile): wait until each has listed its tools.
        for (const char* skill :
             {"fixture__echo", "crashy__echo", "asker__ask_user", "changing__echo", "growing__echo"}) {
            int status = 0;
            for (int i = 0; i < 300 && status != 200; ++i) {
                status = daemon_->get(std::string("/v1/skills/") + skill).status;
                if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            ASSERT_EQ(status, 200) << skill << " never joined the catalog";
        }
    }
    static void TearDownTestSuite() {
        delete daemon_;
        daemon_ = nullptr;
    }
    // What alice's server process read (it runs sandboxed: the one place it may write is its data
    // directory for her, ${data_dir} in the declaration).
    static fs::path log() { return daemon_->home() / "users" / "alice" / "plugins" / "fixture" / "received.log"; }
    static std::string received() {
        EXPECT_TRUE(fs::exists(log())) << "alice's server keeps its log in her data directory";
        std::ifstream in(log());
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }
    static HttpResult call(const std::string& skill, const std::string& args, std::string_view user = "alice") {
        return daemon_->post("/v1/skills/" + skill + "/call", "{\"args\":" + args + "}", user);
    }
    static inline DaemonProcess* daemon_ = nullptr;
};

TEST_F(ServeForeignServer, AToolIsCalledOverHttpAsAnySkillIs) {
    auto reply = call("fixture__echo", R"({"message":"over http"})");
    ASSERT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(reply.json().at("result").at("message"), "over http");
}

TEST_F(ServeForeignServer, AToolTheDeclarationSaysNothingOfWaitsForApproval) {
    ASSERT_EQ(call("fixture__echo", R"({"message":"first"})").status, 200);  // alice's server runs
    auto reply = call("fixture__write_note", R"({"path":"x.txt","text":"y"})");
    EXPECT_EQ(reply.status, 202) << reply.body;
    EXPECT_THAT(reply.body, HasSubstr("APPROVAL_REQUIRED"));
    EXPECT_THAT(received(), ::testing::Not(HasSubstr("write_note")));
}

TEST_F(ServeForeignServer, ADenyRuleRefusesBeforeTheServerSeesTheCall) {
    ASSERT_EQ(call("fixture__echo", R"({"message":"first"})").status, 200);  // alice's server runs
    auto reply = call("fixture__echo", R"({"message":"classified plans"})");
    EXPECT_EQ(reply.status, 403) << reply.body;
    EXPECT_THAT(reply.body, HasSubstr("DENIED_BY_RULE"));
    EXPECT_THAT(received(), ::testing::Not(HasSubstr("classified")));
}

TEST_F(ServeForeignServer, EachUserHasAServerProcessOfTheirOwn) {
    // Each process has the calling user's data directory as its HOME (and, sandboxed, pid 2 in a
    // PID namespace of its own, so the pid says nothing).
    auto alice = call("fixture__env", R"({"name":"HOME"})", "alice");
    auto owner = call("fixture__env", R"({"name":"HOME"})", "owner");
    ASSERT_EQ(alice.status, 200) << alice.body;
    ASSERT_EQ(owner.status, 200) << owner.body;
    EXPECT_EQ(alice.json().at("result").at("text").as_string(),
              (daemon_->home() / "users/alice/plugins/fixture").string());
    EXPECT_EQ(owner.json().at("result").at("text").as_string(),
              (daemon_->home() / "users/owner/plugins/fixture").string());
}

TEST_F(ServeForeignServer, AServerThatCrashesTouchesNoOtherSkillAndNotTheDaemon) {
    auto crashed = call("crashy__echo", R"({"message":"boom"})");
    EXPECT_THAT(crashed.body, HasSubstr("PLUGIN_CRASHED"));
    auto native = call("echo", R"({"text":"still here"})");
    EXPECT_EQ(native.status, 200) << native.body;
    auto foreign = call("fixture__echo", R"({"message":"and here"})");
    EXPECT_EQ(foreign.status, 200) << foreign.body;
    EXPECT_EQ(daemon_->get("/readyz").status, 200);
}

// A server's question to the user is the call's question: queued durably for the user (no one can
// be asked during an HTTP call), and once answered the call runs again and the server gets the answer.
TEST_F(ServeForeignServer, AServersQuestionIsQueuedForTheUserAndTheCallRunsAgainWithTheAnswer) {
    auto paused = call("asker__ask_user", "{}", "alice");
    ASSERT_EQ(paused.status, 202) << paused.body;
    EXPECT_EQ(paused.error_code(), "ELICITATION_REQUIRED") << paused.body;
    const json::value body = paused.json();
    EXPECT_EQ(body.at("error").at("details").at("message").as_string(), "Who is asking?");
    const std::string id(body.at("elicitation_id").as_string());

    auto answered = daemon_->post("/v1/elicitations/" + id, R"({"action":"accept","content":{"name":"Ada"}})", "alice");
    ASSERT_EQ(answered.status, 200) << answered.body;
    const json::value outcome = answered.json();
    EXPECT_EQ(outcome.at("elicitation").at("state").as_string(), "completed") << answered.body;
    EXPECT_EQ(outcome.at("call").at("ok").as_bool(), true) << answered.body;
    EXPECT_EQ(outcome.at("call").at("result").at("text").as_string(), "hello Ada") << answered.body;

    auto refused = daemon_->post("/v1/elicitations/" + id, R"({"action":"accept","content":{"name":"Eve"}})", "alice");
    EXPECT_EQ(refused.status, 409) << "answered once: " << refused.body;
}

// The daemon starts the server in the sandbox of third-party runners: the daemon's files, processes
// and network are out of its reach, whatever its tools are asked.
TEST_F(ServeForeignServer, TheServerRunsInTheSandboxOfThirdPartyRunners) {
    auto ready = daemon_->get("/readyz", "owner");
    ASSERT_EQ(ready.status, 200) << ready.body;
    bool shown = false;
    const json::value body = ready.json();
    for (const auto& entry : body.at("checks").at("isolation").at("plugins").as_array()) {
        if (entry.at("plugin") != "fixture") continue;
        shown = true;
        const auto& sandbox = entry.at("sandbox").as_object();
        EXPECT_TRUE(sandbox.contains("seccomp")) << json::serialize(sandbox);
        EXPECT_TRUE(sandbox.contains("landlock_abi")) << json::serialize(sandbox);
        EXPECT_EQ(sandbox.at("exec"), "system directories and the declared files only");
    }
    EXPECT_TRUE(shown) << ready.body;

    const fs::path secret = daemon_->home() / "secret.txt";
    write_file(secret, "the daemon's own secret");
    auto read = call("fixture__read_paths", "{\"paths\":[\"" + secret.string() + "\"]}");
    ASSERT_EQ(read.status, 200) << read.body;
    EXPECT_THAT(read.body, HasSubstr("cannot read"));
    EXPECT_THAT(read.body, ::testing::Not(HasSubstr("the daemon's own secret")));
    for (const char* action : {"spawn", "unix_socket", "ptrace", "signal_parent"}) {
        auto probe = call("fixture__probe", std::string("{\"action\":\"") + action + "\"}");
        ASSERT_EQ(probe.status, 200) << probe.body;
        EXPECT_THAT(std::string(probe.json().at("result").at("text").as_string()), ::testing::StartsWith("denied"))
            << action;
    }
}

// Start-up never holds up the catalog: the daemon serves (native skills, other servers) while a
// server is still starting; a slow one joins the catalog once it has listed its tools, a wedged one
// is reported when its start-up limit passes. (Were starts on the catalog's path, the daemon would
// listen only after the wedged server's 8 s, with its failure already recorded.)
TEST(ServeForeignServerStartup, TheDaemonServesWhileServersStart) {
    DaemonSetup setup;
    DaemonProcess daemon(setup);
    const std::string server = (test::fixture_dir("foreign_mcp") / "skillhost_fixture_mcp_server").string();
    write_file(daemon.plugins_dir() / "wedged.yaml",
               "kind: mcp_server\nname: wedged\ntransport: stdio\ncommand: " + server +
                   "\nargs: [--never-answer]\nlimits: {startup_timeout_ms: 8000}\n");
    write_file(daemon.plugins_dir() / "late.yaml",
               "kind: mcp_server\nname: late\ntransport: stdio\ncommand: " + server +
                   "\nargs: [--slow-start, \"1500\"]\n"
                   "skills:\n  - {id: echo, risk: low, min_trust: observe, requires_approval: false}\n");
    daemon.start();
    const auto failed = [&daemon] {
        const json::value ready = daemon.get("/readyz").json();
        return ready.at("checks").at("plugins").at("failed").to_number<std::int64_t>();
    };
    EXPECT_EQ(failed(), 0) << "the wedged server is still starting";
    auto native = daemon.post("/v1/skills/echo/call", R"({"args":{"text":"serving"}})", "alice");
    EXPECT_EQ(native.status, 200) << native.body;

    int status = 0;
    for (int i = 0; i < 300 && status != 200; ++i) {
        status = daemon.post("/v1/skills/late__echo/call", R"({"args":{"message":"joined"}})", "alice").status;
        if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(status, 200) << "the slow server joined the catalog once it had started";

    std::int64_t failures = 0;
    for (int i = 0; i < 300 && failures == 0; ++i) {
        failures = failed();
        if (failures == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(failures, 1) << "the wedged server's failure is reported once its limit has passed";
    EXPECT_EQ(daemon.post("/v1/skills/echo/call", R"({"args":{"text":"still"}})", "alice").status, 200);
}

// The server changes echo's description after its first listing and says so: the next call is
// refused with the decision it waits on, which only an owner decides over the API.
TEST_F(ServeForeignServer, AChangedToolWaitsForAnOwnersDecisionOverHttp) {
    std::string id;
    for (int attempt = 0; attempt < 50 && id.empty(); ++attempt) {
        auto reply = call("changing__echo", R"({"message":"m"})");
        if (reply.body.find("UPSTREAM_DEFINITION_CHANGED") != std::string::npos) {
            // A skill's failed call is the call's outcome (200, ok false), as for any skill.
            EXPECT_EQ(reply.json().at("ok"), false) << reply.body;
            id = std::string(reply.json().at("error").at("details").at("decision_id").as_string());
        } else {
            ASSERT_EQ(reply.status, 200) << reply.body;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    ASSERT_FALSE(id.empty()) << "the change was never noticed";

    auto listed = daemon_->get("/v1/definition_changes");
    ASSERT_EQ(listed.status, 200) << listed.body;
    EXPECT_THAT(listed.body, HasSubstr(id));
    auto shown = daemon_->get("/v1/definition_changes/" + id);
    ASSERT_EQ(shown.status, 200) << shown.body;
    EXPECT_THAT(shown.body, HasSubstr("\"field\":\"description\""));

    auto by_alice = daemon_->post("/v1/definition_changes/" + id + "/approve", "{}", "alice");
    EXPECT_EQ(by_alice.status, 403) << by_alice.body;
    EXPECT_THAT(by_alice.body, HasSubstr("NOT_ALLOWED_TO_PIN"));
    auto unknown = daemon_->post("/v1/definition_changes/def-0000000000000000/approve", "{}");
    EXPECT_EQ(unknown.status, 404) << unknown.body;
    EXPECT_THAT(unknown.body, HasSubstr("DEFINITION_CHANGE_NOT_FOUND"));
    auto blank = daemon_->post("/v1/definition_changes/" + id + "/reject", R"({"reason":"  "})");
    EXPECT_EQ(blank.status, 400) << blank.body;
    EXPECT_THAT(blank.body, HasSubstr("FIELD_EMPTY"));

    auto approved = daemon_->post("/v1/definition_changes/" + id + "/approve", "{}");
    ASSERT_EQ(approved.status, 200) << approved.body;
    EXPECT_EQ(approved.json().at("definition_change").at("state"), "pinned");
    auto twice = daemon_->post("/v1/definition_changes/" + id + "/approve", "{}");
    EXPECT_EQ(twice.status, 409) << twice.body;
    EXPECT_THAT(twice.body, HasSubstr("DEFINITION_CHANGE_ALREADY_DECIDED"));

    auto after = call("changing__echo", R"({"message":"approved"})");
    EXPECT_EQ(after.status, 200) << after.body;
}

// The server adds a tool (and drops another) after its first call and says so: the new tool joins
// the catalog without a reload or restart, is refused naming the decision it waits on, and runs once
// an owner approves that decision with the CLI; the dropped one leaves the catalog.
TEST_F(ServeForeignServer, AToolAddedWithListChangedJoinsTheCatalogAndRunsOnceApproved) {
    EXPECT_EQ(daemon_->get("/v1/skills/growing__latecomer").status, 404);
    EXPECT_EQ(daemon_->get("/v1/skills/growing__add").status, 200);
    auto first = call("growing__echo", R"({"message":"grow"})");
    ASSERT_EQ(first.status, 200) << first.body;

    int status = 0;
    for (int i = 0; i < 300 && status != 200; ++i) {
        status = daemon_->get("/v1/skills/growing__latecomer").status;
        if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_EQ(status, 200) << "the tool the server added never joined the catalog";
    auto skills = daemon_->get("/v1/skills");
    ASSERT_EQ(skills.status, 200) << skills.body;
    EXPECT_THAT(skills.body, HasSubstr("growing__latecomer"));
    EXPECT_THAT(skills.body, ::testing::Not(HasSubstr("growing__add"))) << "the tool the server dropped left";
    EXPECT_EQ(daemon_->get("/v1/skills/growing__add").status, 404);
    // Its decision was asked for when the server listed it, before anyone called it.
    auto pending = daemon_->get("/v1/definition_changes");
    ASSERT_EQ(pending.status, 200) << pending.body;
    EXPECT_THAT(pending.body, HasSubstr("growing__latecomer"));

    auto refused = call("growing__latecomer", "{}");
    ASSERT_EQ(refused.status, 200) << refused.body;  // a skill's failed call is the call's outcome
    const json::value outcome = refused.json();
    EXPECT_EQ(outcome.at("ok"), false) << refused.body;
    const auto& error = outcome.at("error");
    EXPECT_EQ(error.at("code"), "UPSTREAM_DEFINITION_CHANGED") << refused.body;
    const std::string id(error.at("details").at("decision_id").as_string());
    EXPECT_THAT(std::string(error.at("message").as_string()), HasSubstr(id));

    auto approved = daemon_->cli({"definition_changes", "approve", id});
    ASSERT_EQ(approved.exit_code, 0) << approved.out << approved.err;
    auto called = call("growing__latecomer", "{}");
    ASSERT_EQ(called.status, 200) << called.body;
    EXPECT_EQ(called.json().at("result").at("text"), "latecomer here") << called.body;
    EXPECT_EQ(call("growing__echo", R"({"message":"still"})").status, 200);
}

}  // namespace
}  // namespace skillhost::testing
