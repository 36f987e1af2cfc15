#include "audit/audit_database.hpp"
#include "audit/audit_reader.hpp"
#include "policy/call_authorization.hpp"
#include "support/unit_testing.hpp"
#include "support/postgres_server.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::policy {
namespace {

using ::testing::HasSubstr;
using unit_testing::TempDir;

struct Gate {
    TempDir dir;
    audit::AuditSource source;
    std::unique_ptr<audit::AuditLog> audit;
    std::unique_ptr<decisions::ApprovalQueue> queue;
    PolicyEngine engine{PolicyConfig{}};

    // The queue and the audit log as a host on `where` keeps them: in the home, or both in PostgreSQL.
    explicit Gate(const db::StorageLocation& where) {
        source.directory = dir.path() / "audit";
        if (where.backend == db::StorageBackend::postgres) {
            source.database = where;
            audit = audit::AuditLog::open(audit::DatabaseAuditSink::open(where, {}).value()).value();
        } else {
            audit = audit::AuditLog::open(source.directory).value();
        }
        queue = decisions::ApprovalQueue::open(where, {std::chrono::hours(24), {}, audit.get()}).value();
    }
    std::vector<boost::json::object> decisions() const {
        auto page =
            audit::read_audit_page(source, {std::nullopt, std::nullopt, std::string("decision"), std::nullopt}, 1000);
        EXPECT_TRUE(page.ok()) << page.error().message;
        return page.ok() ? page->batch.records : std::vector<boost::json::object>{};
    }
};

// Every test runs with the queue and audit log of a SQLite home and of a PostgreSQL host.
class CallAuthorization : public ::skillhost::testing::OnEachBackend {
protected:
    void SetUp() override {
        OnEachBackend::SetUp();
        if (!IsSkipped() && !HasFatalFailure()) gate_ = std::make_unique<Gate>(location());
    }
    std::unique_ptr<Gate> gate_;
};

SKILLHOST_ON_EACH_BACKEND(CallAuthorization);

const auth::UserContext bob{
    "bob", auth::Role::standard, manifest::TrustLevel::supervised_auto, auth::CognitiveMode::agent, {}};

// The issue's "done when" story, as far as policy goes.
TEST_P(CallAuthorization, AStandardUserWritingAFileGetsAnApprovalIdAndNothingRuns) {
    Gate& gate = *gate_;
    const auto args = boost::json::parse(R"({"path":"notes/a.md","content":"hello"})");
    auto auth = authorize_call(gate.engine, *gate.queue, gate.audit.get(), bob, unit_testing::fs_write_skill(), args,
                               auth::Requester::run("r1"));
    ASSERT_TRUE(auth.ok()) << auth.error().message;
    EXPECT_FALSE(auth->may_run());
    ASSERT_TRUE(auth->approval.has_value());
    const Error error = auth->error();
    EXPECT_EQ(error.code, "APPROVAL_REQUIRED");
    EXPECT_THAT(error.message, HasSubstr("skillhost approvals approve " + auth->approval->id));
    const auto stored = gate.queue->get(auth->approval->id);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->state, decisions::ApprovalState::pending);
    EXPECT_EQ(stored->requested_by.run_id(), "r1");
    EXPECT_EQ(stored->arguments, args);
    EXPECT_THAT(stored->preview, HasSubstr("path=\"notes/a.md\""));
    const auto decisions = gate.decisions();
    ASSERT_EQ(decisions.size(), 1u);
    EXPECT_EQ(decisions[0].at("code").as_string(), "APPROVAL_REQUIRED");
}

TEST_P(CallAuthorization, AllowedAndDeniedCallsQueueNothing) {
    Gate& gate = *gate_;
    auto read = authorize_call(gate.engine, *gate.queue, gate.audit.get(), bob, unit_testing::fs_read_skill(),
                               boost::json::parse(R"({"path":"a"})"));
    ASSERT_TRUE(read.ok());
    EXPECT_TRUE(read->may_run());
    EXPECT_FALSE(read->approval.has_value());
    auth::UserContext emulating = bob;
    emulating.mode = auth::CognitiveMode::emulation;
    auto hidden = authorize_call(gate.engine, *gate.queue, nullptr, emulating, unit_testing::fs_write_skill(),
                                 boost::json::parse(R"({"path":"a","content":"b"})"));
    ASSERT_TRUE(hidden.ok());
    EXPECT_EQ(hidden->error().code, "MODE_FORBIDS");
    EXPECT_TRUE(gate.queue->list()->empty());
}

// The approve flow the executor runs: claim, re-check policy for the user as they are now, then
// run (ask is satisfied by the approval) or record the refusal. Nothing refused ever runs.
// The decision record: what policy decided, at which step, and the rule with where it is written.
TEST_P(CallAuthorization, ADecisionIsAuditedWithItsRule) {
    Gate& gate = *gate_;
    auto config = parse_policy_config("global:\n  deny: [\"fs_write(path=secrets/**)\"]\n", "policy.yaml");
    ASSERT_TRUE(config.ok());
    const PolicyEngine engine(std::move(*config));
    const auto args = boost::json::parse(R"({"path":"secrets/k","content":"x"})");
    const Decision d = engine.decide(
        {"bob", auth::Role::standard, manifest::TrustLevel::adaptive_auto, auth::CognitiveMode::agent, {}},
        unit_testing::fs_write_skill(), args);
    ASSERT_TRUE(record_decision(*gate.audit, d, args).ok());
    const auto decisions = gate.decisions();
    ASSERT_EQ(decisions.size(), 1u);
    const auto& record = decisions[0];
    // Each field the decision gives its record.
    const auto expected = boost::json::parse(
        R"~({"kind": "decision", "user": "bob", "skill": "fs_write", "mode": "agent", "outcome": "deny",)~"
        R"~( "step": "rule", "code": "DENIED_BY_RULE", "rule": "fs_write(path=secrets/**)",)~"
        R"~( "rule_location": "policy.yaml:2"})~");
    for (const auto& [field, value] : expected.as_object()) {
        ASSERT_TRUE(record.contains(field)) << field;
        EXPECT_EQ(record.at(field), value) << field;
    }
    EXPECT_EQ(record.at("arguments").at("path").as_string(), "secrets/k");
}

TEST_P(CallAuthorization, ApprovingReChecksPolicyAtThatMoment) {
    Gate& gate = *gate_;
    const auto args = boost::json::parse(R"({"path":"notes/a.md","content":"hello"})");
    const auto spec = unit_testing::fs_write_skill();
    const auto first = authorize_call(gate.engine, *gate.queue, gate.audit.get(), bob, spec, args)->approval->id;
    const auto second = authorize_call(gate.engine, *gate.queue, gate.audit.get(), bob, spec, args)->approval->id;
    const decisions::Resolver owner{"owner", auth::Role::owner};

    // Still allowed at approval time: the re-check asks again, which this approval satisfies.
    auto claim = gate.queue->claim_for_execution(first, owner);
    ASSERT_TRUE(claim.ok());
    const Decision still = gate.engine.decide(bob, spec, claim->arguments);
    EXPECT_FALSE(still.denied());
    ASSERT_TRUE(gate.queue->complete(first, true, boost::json::object{{"ok", true}}).ok());

    // Meanwhile bob was demoted to observe: the re-check refuses and the approval fails unexecuted.
    auth::UserContext demoted = bob;
    demoted.trust = manifest::TrustLevel::observe;
    claim = gate.queue->claim_for_execution(second, owner);
    ASSERT_TRUE(claim.ok());
    const Decision now = gate.engine.decide(demoted, spec, claim->arguments);
    ASSERT_TRUE(now.denied());
    EXPECT_EQ(now.code.name, "TRUST_TOO_LOW");
    boost::json::object refused{{"ok", false}, {"error", now.to_error().to_json()}};
    ASSERT_TRUE(gate.queue->complete(second, false, refused, "policy re-check at approval: " + now.reason).ok());
    const auto stored = gate.queue->get(second);
    EXPECT_EQ(stored->state, decisions::ApprovalState::failed);
    EXPECT_THAT(stored->reason, HasSubstr("policy re-check at approval"));
    EXPECT_EQ(stored->result.at("error").at("code").as_string(), "TRUST_TOO_LOW");
}

}  // namespace
}  // namespace skillhost::policy
