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
                   "kind: mcp_server\nname: fixture\ntransport: stdio\ncommand: " + server + "\nargs: [--log, " +
                       log().string() +
                       "]\nskills:\n"
                       "  - {id: echo, risk: low, min_trust: observe, requires_approval: false}\n"
                       "  - {id: whoami, risk: low, min_trust: observe, requires_approval: false}\n");
        write_file(daemon_->plugins_dir() / "crashy.yaml",
                   "kind: mcp_server\nname: crashy\ntransport: stdio\ncommand: " + server +
                       "\nargs: [--crash-on-call, \"1\"]\n"
                       "skills:\n  - {id: echo, risk: low, min_trust: observe, requires_approval: false}\n");
        write_file(daemon_->plugins_dir() / "changing.yaml",
                   "kind: mcp_server\nname: changing\ntransport: stdio\ncommand: " + server +
                       "\nargs: [--change-after-list]\n"
                       "skills:\n  - {id: echo, risk: low, min_trust: observe, requires_approval: false}\n");
        daemon_->start();
    }
    static void TearDownTestSuite() {
        delete daemon_;
        daemon_ = nullptr;
        std::error_code ec;
        fs::remove(log(), ec);
    }
    static fs::path log() {
        return fs::temp_directory_path() / ("skillhost-serve-foreign-" + std::to_string(::getpid()) + ".log");
    }
    static std::string received() {
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
    auto reply = call("fixture__write_note", R"({"path":"x.txt","text":"y"})");
    EXPECT_EQ(reply.status, 202) << reply.body;
    EXPECT_THAT(reply.body, HasSubstr("APPROVAL_REQUIRED"));
    EXPECT_THAT(received(), ::testing::Not(HasSubstr("write_note")));
}

TEST_F(ServeForeignServer, ADenyRuleRefusesBeforeTheServerSeesTheCall) {
    auto reply = call("fixture__echo", R"({"message":"classified plans"})");
    EXPECT_EQ(reply.status, 403) << reply.body;
    EXPECT_THAT(reply.body, HasSubstr("DENIED_BY_RULE"));
    EXPECT_THAT(received(), ::testing::Not(HasSubstr("classified")));
}

TEST_F(ServeForeignServer, EachUserHasAServerProcessOfTheirOwn) {
    auto alice = call("fixture__whoami", "{}", "alice");
    auto owner = call("fixture__whoami", "{}", "owner");
    ASSERT_EQ(alice.status, 200) << alice.body;
    ASSERT_EQ(owner.status, 200) << owner.body;
    const auto pid = [](const HttpResult& r) {
        const std::string text(r.json().at("result").at("text").as_string());
        return text.substr(text.find("pid="), text.find(' ', text.find("pid=")) - text.find("pid="));
    };
    EXPECT_NE(pid(alice), pid(owner));
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

}  // namespace
}  // namespace skillhost::testing
