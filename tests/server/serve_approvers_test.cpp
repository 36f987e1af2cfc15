// Approving is a right of its own: token scopes (call, approve, admin) over the real daemon, and a
// token that asked for a call cannot approve it (approvals.require_approver, on by default).
#include "daemon_process.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
namespace json = boost::json;

class ServeApprovers : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        DaemonSetup setup;
        setup.policy_yaml = "global:\n  ask: [\"add\"]\n";
        daemon_ = new DaemonProcess(setup);
        daemon_->start();
    }
    static void TearDownTestSuite() {
        delete daemon_;
        daemon_ = nullptr;
    }
    static DaemonProcess& d() { return *daemon_; }
    // Queues `add` with `bearer` and returns the approval id.
    static std::string queue_add(const std::string& bearer) {
        auto queued = d().post_with("/v1/skills/add/call", R"({"args":{"a":20,"b":22}})", bearer);
        EXPECT_EQ(queued.status, 202) << queued.body;
        EXPECT_EQ(queued.error_code(), "APPROVAL_REQUIRED") << queued.body;
        return std::string(queued.json().at("approval_id").as_string());
    }
    static HttpResult approve(const std::string& id, const std::string& bearer) {
        return d().post_with("/v1/approvals/" + id + "/approve", "", bearer);
    }
    static inline DaemonProcess* daemon_ = nullptr;
};

TEST_F(ServeApprovers, WhoamiReportsTheTokensScopesAndId) {
    const std::string agent = d().create_token("alice", "call");
    auto me = http_request(d().port(), RequestSpec{"GET", "/v1/whoami", "", agent, {}});
    ASSERT_EQ(me.status, 200) << me.body;
    EXPECT_EQ(json::serialize(me.json().at("scopes")), R"(["call"])");
    EXPECT_EQ(me.json().at("token_id").as_string().size(), 12u) << me.body;

    const std::string owner_approver = d().create_token("owner", "call,approve");
    auto owner = http_request(d().port(), RequestSpec{"GET", "/v1/whoami", "", owner_approver, {}});
    ASSERT_EQ(owner.status, 200) << owner.body;
    EXPECT_EQ(json::serialize(owner.json().at("scopes")), R"(["call","approve"])");
    EXPECT_EQ(owner.json().at("role").as_string(), "standard") << "without admin an owner's token acts as standard";

    auto full = d().get("/v1/whoami", "owner");  // users.yaml tokens have every scope
    ASSERT_EQ(full.status, 200) << full.body;
    EXPECT_EQ(json::serialize(full.json().at("scopes")), R"(["call","approve","admin"])");
    EXPECT_EQ(full.json().at("role").as_string(), "owner");
}

TEST_F(ServeApprovers, ACallOnlyTokenCanNeitherApproveNorRejectAndItsCallsStayPending) {
    const std::string agent = d().create_token("alice", "call");
    const std::string id = queue_add(agent);
    auto approved = approve(id, agent);
    EXPECT_EQ(approved.status, 403) << approved.body;
    EXPECT_EQ(approved.error_code(), "MISSING_SCOPE");
    EXPECT_THAT(approved.body, HasSubstr("--scope approve"));
    auto rejected = d().post_with("/v1/approvals/" + id + "/reject", R"({"reason":"no"})", agent);
    EXPECT_EQ(rejected.status, 403) << rejected.body;
    EXPECT_EQ(rejected.error_code(), "MISSING_SCOPE");
    auto record = d().get("/v1/approvals/" + id, "alice");
    ASSERT_EQ(record.status, 200) << record.body;
    EXPECT_EQ(record.json().at("state").as_string(), "pending");

    // An approver's token of the same user resolves it, and the call runs once.
    const std::string approver = d().create_token("alice", "approve");
    auto done = approve(id, approver);
    ASSERT_EQ(done.status, 200) << done.body;
    EXPECT_EQ(done.json().at("approval").at("state").as_string(), "executed");
    EXPECT_EQ(done.json().at("call").at("result").at("sum").to_number<int>(), 42);
}

TEST_F(ServeApprovers, TheTokenThatAskedCannotApproveItsOwnCallEvenWithTheApproveScope) {
    const std::string agent = d().create_token("alice", "call,approve");
    const std::string id = queue_add(agent);
    auto own = approve(id, agent);
    EXPECT_EQ(own.status, 403) << own.body;
    EXPECT_EQ(own.error_code(), "SELF_APPROVAL");
    EXPECT_EQ(d().get("/v1/approvals/" + id, "alice").json().at("state").as_string(), "pending");
    // Another approve-scoped token may; so may the user at the terminal.
    const std::string other = d().create_token("alice", "call,approve");
    auto by_other = approve(id, other);
    ASSERT_EQ(by_other.status, 200) << by_other.body;
    EXPECT_EQ(by_other.json().at("approval").at("state").as_string(), "executed");

    const std::string second = queue_add(agent);
    auto at_terminal = d().cli({"approvals", "approve", second, "--user", "alice"});
    EXPECT_EQ(at_terminal.exit_code, 0) << at_terminal.err << at_terminal.out;
    EXPECT_EQ(d().get("/v1/approvals/" + second, "alice").json().at("state").as_string(), "executed");
}

TEST_F(ServeApprovers, AnApproveOnlyTokenCannotCallSkills) {
    const std::string approver = d().create_token("alice", "approve");
    auto call = d().post_with("/v1/skills/echo/call", R"({"args":{"text":"hi"}})", approver);
    EXPECT_EQ(call.status, 403) << call.body;
    EXPECT_EQ(call.error_code(), "MISSING_SCOPE");
    auto run = d().post_with("/v1/runs", R"({"goal":"Which tasks are still open?"})", approver);
    EXPECT_EQ(run.status, 403) << run.body;
    EXPECT_EQ(run.error_code(), "MISSING_SCOPE");
}

TEST_F(ServeApprovers, AnOwnersTokenWithoutAdminActsOnlyForItsOwnUser) {
    const std::string alice_call = d().create_token("alice", "call");
    const std::string id = queue_add(alice_call);
    const std::string owner_approver = d().create_token("owner", "call,approve");
    auto not_admin = approve(id, owner_approver);
    EXPECT_EQ(not_admin.status, 404) << not_admin.body;  // without admin, alice's approvals are not its to see
    auto listing = http_request(d().port(), RequestSpec{"GET", "/v1/approvals?user=alice", "", owner_approver, {}});
    EXPECT_EQ(listing.status, 403) << listing.body;

    const std::string owner_admin = d().create_token("owner", "call,approve,admin");
    auto admin = approve(id, owner_admin);
    ASSERT_EQ(admin.status, 200) << admin.body;
    EXPECT_EQ(admin.json().at("approval").at("state").as_string(), "executed");
}

TEST_F(ServeApprovers, TokenCreateRefusesAnUnknownScopeAndListsScopes) {
    auto bad = d().cli({"token", "create", "--user", "alice", "--scope", "call,root"});
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_THAT(bad.err, HasSubstr("INVALID_SCOPE"));
    EXPECT_THAT(bad.err, HasSubstr("root"));
    (void)d().create_token("alice", "approve");
    auto listed = d().cli({"token", "list", "--user", "alice", "--json"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_THAT(listed.out, HasSubstr("\"scopes\": \"approve\""));
}

}  // namespace
}  // namespace skillhost::testing
