// Two `skillhost serve` daemons on one PostgreSQL database, started the way users start them and
// spoken to over loopback HTTP: approvals, their execution and the audit log are shared, so any
// instance can serve any request.
#include "daemon_process.hpp"
#include "db/postgres_connection.hpp"
#include "support/child_process.hpp"
#include "support/postgres_server.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <thread>
#include <unistd.h>

namespace skillhost::testing {
namespace {

namespace json = boost::json;

DaemonSetup shared_setup(const std::string& url) {
    DaemonSetup setup;
    setup.policy_yaml = "global:\n  ask: [\"add\"]\n";
    setup.extra_yaml = "storage:\n  backend: postgres\n  url: \"" + url + "\"\n";
    return setup;
}

std::string queue_add(DaemonProcess& daemon, int a) {
    auto queued = daemon.post("/v1/skills/add/call", R"({"args":{"a":)" + std::to_string(a) + R"(,"b":22}})", "alice");
    EXPECT_EQ(queued.status, 202) << queued.body;
    EXPECT_EQ(queued.error_code(), "APPROVAL_REQUIRED") << queued.body;
    return queued.status == 202 ? std::string(queued.json().at("approval_id").as_string()) : std::string();
}

// The audit records (shared by both instances) of `kind` that mention `text`.
std::vector<json::object> audit_records(DaemonProcess& daemon, const std::string& kind, const std::string& text) {
    auto page = daemon.get("/v1/audit?kind=" + kind + "&limit=1000");
    EXPECT_EQ(page.status, 200) << page.body;
    std::vector<json::object> out;
    if (page.status != 200) return out;
    const auto body = page.json();  // kept alive while its records are read
    for (const auto& record : body.at("records").as_array()) {
        if (json::serialize(record).find(text) != std::string::npos) out.push_back(record.as_object());
    }
    return out;
}

class ServeSharedState : public ::testing::Test {
protected:
    void SetUp() override {
        SKILLHOST_POSTGRES_DATABASE(url);
        first = std::make_unique<DaemonProcess>(shared_setup(url));
        second = std::make_unique<DaemonProcess>(shared_setup(url));
        first->start();
        second->start();
    }
    std::unique_ptr<DaemonProcess> first;
    std::unique_ptr<DaemonProcess> second;
};

TEST_F(ServeSharedState, AnApprovalRequestedOnOneInstanceAndApprovedOnTheOtherRunsExactlyOnce) {
    const std::string id = queue_add(*first, 20);
    ASSERT_FALSE(id.empty());

    // The other instance sees it pending.
    auto listed = second->get("/v1/approvals?state=pending", "alice");
    ASSERT_EQ(listed.status, 200) << listed.body;
    EXPECT_NE(listed.body.find(id), std::string::npos) << listed.body;

    auto approved = second->post("/v1/approvals/" + id + "/approve", "", "alice");
    ASSERT_EQ(approved.status, 200) << approved.body;
    EXPECT_EQ(approved.json().at("approval").at("state").as_string(), "executed");
    EXPECT_EQ(approved.json().at("call").at("result").at("sum").to_number<int>(), 42);

    // Approving it again on the first instance is a conflict, and runs nothing.
    auto again = first->post("/v1/approvals/" + id + "/approve", "", "alice");
    EXPECT_EQ(again.status, 409) << again.body;
    EXPECT_EQ(again.error_code(), "APPROVAL_ALREADY_RESOLVED") << again.body;
    EXPECT_EQ(first->get("/v1/approvals/" + id, "alice").json().at("state").as_string(), "executed");

    // One shared audit log, read through either instance: requested on one, approved and executed once.
    std::vector<std::string> transitions;
    for (const auto& record : audit_records(*first, "approval", id)) {
        transitions.emplace_back(record.at("transition").as_string());
    }
    EXPECT_EQ(transitions, (std::vector<std::string>{"requested", "approved", "executed"}));
    const auto calls = audit_records(*second, "skill_call", "\"skill\":\"add\"");
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].at("outcome").as_string(), "ok");
    // Nothing went to per-instance day files.
    const auto files = first->home() / "audit";
    EXPECT_TRUE(!std::filesystem::exists(files) || std::filesystem::is_empty(files));
}

TEST_F(ServeSharedState, ConcurrentApprovalsOfOneIdFromBothInstancesHaveOneWinner) {
    constexpr int rounds = 5;
    for (int round = 0; round < rounds; ++round) {
        const std::string id = queue_add(round % 2 == 0 ? *first : *second, round);
        ASSERT_FALSE(id.empty());
        std::atomic<bool> go{false};
        HttpResult results[2];
        DaemonProcess* instances[2] = {first.get(), second.get()};
        std::thread racers[2];
        for (int i = 0; i < 2; ++i) {
            racers[i] = std::thread([&, i] {
                while (!go.load()) std::this_thread::yield();
                results[i] = instances[i]->post("/v1/approvals/" + id + "/approve", "", "alice");
            });
        }
        go = true;
        for (auto& racer : racers) racer.join();
        const int winners = static_cast<int>(results[0].status == 200) + static_cast<int>(results[1].status == 200);
        ASSERT_EQ(winners, 1) << "round " << round << ": " << results[0].body << " / " << results[1].body;
        const auto& loser = results[0].status == 200 ? results[1] : results[0];
        EXPECT_EQ(loser.status, 409) << loser.body;
        EXPECT_EQ(loser.error_code(), "APPROVAL_ALREADY_RESOLVED") << loser.body;
    }
    // Each approval's skill ran once: one skill_call record per round, across both instances.
    EXPECT_EQ(audit_records(*first, "skill_call", "\"skill\":\"add\"").size(), static_cast<std::size_t>(rounds));
    EXPECT_EQ(audit_records(*second, "approval", "\"transition\":\"executed\"").size(),
              static_cast<std::size_t>(rounds));
}

TEST_F(ServeSharedState, AModeSetThroughOneInstanceHoldsForTheNextCallOnTheOther) {
    // Each instance keeps users' modes in memory: the second one has alice's cached. A call of
    // `add` is queued for approval, and the answer says in which mode the policy judged it.
    const auto judged_in = [&] {
        auto queued = second->post("/v1/skills/add/call", R"({"args":{"a":1,"b":2}})", "alice");
        EXPECT_EQ(queued.status, 202) << queued.body;
        return queued.status == 202 ? std::string(queued.json().at("error").at("details").at("mode").as_string())
                                    : std::string();
    };
    EXPECT_EQ(judged_in(), "agent");
    for (int round = 0; round < 3; ++round) {
        // Switched through the first instance's home (`skillhost mode set` next to it)...
        auto set = first->cli({"mode", "set", "emulation", "--user", "alice"});
        ASSERT_EQ(set.exit_code, 0) << set.err;
        // ...the very next call on the second instance obeys.
        EXPECT_EQ(judged_in(), "emulation");
        auto back = first->cli({"mode", "set", "agent", "--user", "alice"});
        ASSERT_EQ(back.exit_code, 0) << back.err;
        EXPECT_EQ(judged_in(), "agent");
    }
}

// `skillhost approvals approve` executes the call in the CLI process. If that process dies on
// another machine, no daemon can look at it: its announcement must lapse for the approval to be
// recovered (marked failed, never re-run) instead of staying `approved` forever.
TEST(ServeSharedStateCli, AnApprovalWhoseCliExecutorDiedOnAnotherMachineIsMarkedFailed) {
    SKILLHOST_POSTGRES_DATABASE(url);
    DaemonSetup setup;
    setup.policy_yaml = "global:\n  ask: [\"sleep\"]\n";
    setup.extra_yaml = "storage:\n  backend: postgres\n  url: \"" + url +
                       "\"\n  lease_ttl_ms: 1500\n  lease_heartbeat_ms: 300\n  sweep_interval_ms: 200\n";
    DaemonProcess daemon(setup);
    daemon.start();
    // Inside the plugin's own directory, the one place its sandbox lets it write.
    const auto started = daemon.home() / "users" / "alice" / "plugins" / "echo" / "sleep-started";
    auto queued = daemon.post("/v1/skills/sleep/call",
                              R"({"args":{"ms":60000,"started_file":")" + started.string() + R"("}})", "alice");
    ASSERT_EQ(queued.status, 202) << queued.body;
    const std::string id(queued.json().at("approval_id").as_string());

    ChildProcess cli({SKILLHOST_BINARY, "approvals", "approve", id, "--user", "alice", "--config",
                      (daemon.etc() / "skillhost.yaml").string(), "--home", daemon.home().string()},
                     {{"SKILLHOST_LOG_LEVEL", "warn"}});
    for (int i = 0; i < 6000 && !std::filesystem::exists(started); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(std::filesystem::exists(started)) << cli.stderr_text();
    cli.signal(SIGKILL);  // mid-call (the skill's own timeout is a second), after claiming the approval
    cli.wait(std::chrono::seconds(30));
    ASSERT_EQ(daemon.get("/v1/approvals/" + id, "alice").json().at("state").as_string(), "approved");

    // Move the dead process to another machine: its claim and its announcement now name a host
    // no daemon can inspect, so only the announcement tells that it is gone.
    auto db = db::PgConnection::open(url);
    ASSERT_TRUE(db.ok()) << db.error().message;
    char host[256] = {};
    ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
    const std::string pid = std::to_string(cli.pid());
    auto moved = db->query(
        "UPDATE run_leases SET run_id = 'instance:elsewhere' || substr(run_id, length($1) + 10), "
        "owner = 'elsewhere' || substr(owner, length($1) + 1) WHERE run_id LIKE 'instance:' || $1 || '/' || $2 || '/%'",
        {std::string(host), pid});
    ASSERT_TRUE(moved.ok()) << moved.error().message;
    ASSERT_EQ(moved->affected(), 1) << "the CLI process did not announce itself";
    auto claim =
        db->query("UPDATE pending_decisions SET claim_host = 'elsewhere' WHERE id = $1 AND claim_pid = $2", {id, pid});
    ASSERT_TRUE(claim.ok()) << claim.error().message;
    ASSERT_EQ(claim->affected(), 1);

    std::string state = "approved";
    for (int i = 0; i < 600 && state == "approved"; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        state = daemon.get("/v1/approvals/" + id, "alice").json().at("state").as_string();
    }
    EXPECT_EQ(state, "failed");
}

}  // namespace
}  // namespace skillhost::testing
