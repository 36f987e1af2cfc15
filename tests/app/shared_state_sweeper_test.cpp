// The shared-state sweeper keeps definition changes in order as it does approvals, on the SQLite
// file of a fresh home and on a fresh PostgreSQL database: a pending change past its expiry is
// marked expired and audited as such by the host (one still within it is left pending), and an
// approved change whose approving process died before it pinned the definition is marked failed.
#include "app/shared_state_sweeper.hpp"
#include "audit/audit_log.hpp"
#include "audit/audit_reader.hpp"
#include "decisions/approval_queue.hpp"
#include "decisions/definition_change_queue.hpp"
#include "decisions/sql_from_outside.hpp"
#include "store/run_lease.hpp"
#include "store/run_store.hpp"
#include "support/postgres_server.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace skillhost::app {
namespace {

namespace json = boost::json;
using decisions::DefinitionChangeState;

decisions::DefinitionChangeAsk new_tool(std::string tool) {
    decisions::DefinitionChangeAsk ask;
    ask.server = "files";
    ask.tool = std::move(tool);
    ask.user_id = "alice";
    ask.new_hash = "h-" + ask.tool;
    ask.new_definition = json::object{{"name", ask.tool}, {"description", "A tool the server added."}};
    return ask;
}

class SharedStateSweeperOnEachBackend : public ::skillhost::testing::OnEachBackend {
protected:
    void SetUp() override {
        OnEachBackend::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        auto audit_log = audit::AuditLog::open(dir.path() / "audit");
        ASSERT_TRUE(audit_log.ok()) << audit_log.error().message;
        audit = std::move(audit_log.value());
        decisions::DefinitionChangeQueueOptions options;
        options.ttl = std::chrono::minutes(10);
        options.clock = [ms = ms] { return TimePoint(std::chrono::milliseconds(ms->load())); };
        options.audit = audit.get();
        auto queue = decisions::DefinitionChangeQueue::open(location(), options);
        ASSERT_TRUE(queue.ok()) << queue.error().message;
        changes = std::move(queue.value());
    }

    void advance(std::chrono::minutes by) { *ms += std::chrono::milliseconds(by).count(); }

    // Runs a sweeper (a sweep every 20 ms) until `done` holds or 5 s pass.
    void sweep_until(const std::function<bool()>& done) {
        auto approvals = decisions::ApprovalQueue::open(location());
        ASSERT_TRUE(approvals.ok()) << approvals.error().message;
        auto runs = store::RunStore::open(location());
        ASSERT_TRUE(runs.ok()) << runs.error().message;
        auto leases = store::RunLeases::open(location(), "sweeper-test", std::chrono::seconds(30));
        ASSERT_TRUE(leases.ok()) << leases.error().message;
        SharedStateSweeperParts parts;
        parts.leases = leases->get();
        parts.approvals = approvals->get();
        parts.definition_changes = changes.get();
        parts.runs = runs->get();
        parts.heartbeat = std::chrono::milliseconds(20);
        parts.sweep_interval = std::chrono::milliseconds(20);
        SharedStateSweeper sweeper(std::move(parts));
        for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }

    // The stored state, read without a listing (which expires what it reads on its own).
    DefinitionChangeState state_of(const std::string& id) {
        auto record = changes->get(id);
        EXPECT_TRUE(record.ok()) << record.error().message;
        return record.ok() ? record->state : DefinitionChangeState::pending;
    }

    std::vector<std::string> audited_transitions(const std::string& id) {
        auto log = audit::read_audit_log(dir.path() / "audit",
                                         {std::nullopt, std::nullopt, std::string("definition_change"), std::nullopt});
        EXPECT_TRUE(log.ok()) << log.error().message;
        std::vector<std::string> transitions;
        if (!log.ok()) return transitions;
        for (const auto& record : log->records) {
            if (record.at("definition_change_id").as_string() != id) continue;
            transitions.emplace_back(record.at("transition").as_string());
            if (transitions.back() == "expired") {
                EXPECT_EQ(record.at("actor").as_string(), "host");
            }
        }
        return transitions;
    }

    ::skillhost::testing::TempDir dir{"skillhost-sweeper"};
    std::shared_ptr<std::atomic<std::int64_t>> ms = std::make_shared<std::atomic<std::int64_t>>(1'800'000'000'000);
    std::unique_ptr<audit::AuditLog> audit;
    std::unique_ptr<decisions::DefinitionChangeQueue> changes;
};

SKILLHOST_ON_EACH_BACKEND(SharedStateSweeperOnEachBackend);

TEST_P(SharedStateSweeperOnEachBackend, APendingDefinitionChangePastItsExpiryIsExpiredAndAudited) {
    const std::string late = changes->request(new_tool("late"))->id;
    advance(std::chrono::minutes(9));
    const std::string fresh = changes->request(new_tool("fresh"))->id;
    advance(std::chrono::minutes(2));  // past the first one's expiry, within the second's

    sweep_until([&] { return state_of(late) != DefinitionChangeState::pending; });
    EXPECT_EQ(state_of(late), DefinitionChangeState::expired) << "the sweeper never expired it";
    EXPECT_THAT(changes->get(late)->reason, ::testing::HasSubstr("expired at"));
    EXPECT_EQ(state_of(fresh), DefinitionChangeState::pending) << "not yet due";
    EXPECT_EQ(audited_transitions(late), (std::vector<std::string>{"requested", "expired"}));
}

TEST_P(SharedStateSweeperOnEachBackend, AnApprovedChangeWhoseApproverDiedBeforePinningIsMarkedFailed) {
    const std::string id = changes->request(new_tool("orphan"))->id;
    ASSERT_TRUE(changes->approve(id, decisions::Resolver{"owner", auth::Role::owner}).ok());
    // The approving process is gone before it pinned the definition (and completed the decision).
    ASSERT_EQ(decisions::refusal_of_sql_from_outside(
                  location(), "UPDATE pending_decisions SET claim_pid = 2147483000 WHERE id = '" + id + "'"),
              "");

    sweep_until([&] { return state_of(id) != DefinitionChangeState::approved; });
    EXPECT_EQ(state_of(id), DefinitionChangeState::failed) << "the sweeper never recovered it";
}

}  // namespace
}  // namespace skillhost::app
