#include "db/postgres_connection.hpp"
#include "db/sqlite_connection.hpp"
#include "decisions/approval_preview.hpp"
#include "decisions/approval_queue.hpp"
#include "audit/audit_log.hpp"
#include "audit/audit_reader.hpp"
#include "support/unit_testing.hpp"
#include "support/postgres_server.hpp"
#include "sql_from_outside.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <thread>

namespace skillhost::decisions {
namespace {

using ::testing::HasSubstr;
using unit_testing::TempDir;

const Resolver owner{"owner", auth::Role::owner};
const Resolver bob{"bob", auth::Role::standard};
const Resolver carol{"carol", auth::Role::standard};

ApprovalRequest write_request(std::string user = "bob") {
    ApprovalRequest request;
    request.user_id = std::move(user);
    request.skill_id = "fs_write";
    request.arguments = boost::json::parse(R"({"path":"notes/a.md","content":"hello"})");
    request.preview = make_approval_preview(unit_testing::fs_write_skill(), request.arguments);
    return request;
}

// A clock the test moves by hand.
struct ManualClock {
    std::shared_ptr<std::atomic<std::int64_t>> ms = std::make_shared<std::atomic<std::int64_t>>(1'800'000'000'000);
    std::function<TimePoint()> function() const {
        auto state = ms;
        return [state] { return TimePoint(std::chrono::milliseconds(state->load())); };
    }
    void advance(std::chrono::milliseconds d) { *ms += d.count(); }
};

std::unique_ptr<ApprovalQueue> open_queue(const db::StorageLocation& db, ApprovalQueueOptions options = {}) {
    auto queue = ApprovalQueue::open(db, std::move(options));
    EXPECT_TRUE(queue.ok()) << queue.error().message;
    return queue.ok() ? std::move(*queue) : nullptr;
}

// Every queue test runs on the SQLite file of a fresh home and on a fresh PostgreSQL database.
class ApprovalQueueOnEachBackend : public ::skillhost::testing::OnEachBackend {
protected:
    TempDir dir;  // audit files and anything else a test keeps beside the database
};

SKILLHOST_ON_EACH_BACKEND(ApprovalQueueOnEachBackend);

TEST_P(ApprovalQueueOnEachBackend, EnqueueStoresAPendingRecordWithPreviewAndExpiry) {
    ManualClock clock;
    auto queue = open_queue(location(), {std::chrono::hours(2), clock.function(), nullptr});
    auto request = write_request();
    request.requested_by = auth::Requester::run("run-42");
    auto record = queue->enqueue(request);
    ASSERT_TRUE(record.ok()) << record.error().message;
    EXPECT_THAT(record->id, ::testing::MatchesRegex("apr-[0-9a-f]{16}"));
    EXPECT_EQ(record->state, ApprovalState::pending);
    EXPECT_EQ(record->expires_at - record->requested_at, std::chrono::hours(2));
    auto stored = queue->get(record->id);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->user_id, "bob");
    EXPECT_EQ(stored->skill_id, "fs_write");
    EXPECT_EQ(stored->requested_by, auth::Requester::run("run-42"));
    EXPECT_EQ(stored->requested_by.run_id(), "run-42");
    EXPECT_EQ(stored->arguments, request.arguments);
    EXPECT_EQ(stored->preview, R"(Write a file (fs_write): path="notes/a.md", content="hello")");
    EXPECT_EQ(stored->requested_at, TimePoint(std::chrono::milliseconds(clock.ms->load())));
    EXPECT_FALSE(stored->resolved_at.has_value());
    EXPECT_EQ(queue->get("apr-nope").error().code, "APPROVAL_NOT_FOUND");
    EXPECT_THAT(
        stored->summary_line(),
        ::testing::MatchesRegex(
            "apr-[0-9a-f]{16}  pending  bob  fs_write  expires 2027-.*Z  Write a file \\(fs_write\\): path=.*"));
    EXPECT_THAT(stored->to_text(), HasSubstr("requested_by: run:run-42\n"));
    EXPECT_THAT(stored->to_text(), HasSubstr("state: pending\n"));
    EXPECT_EQ(stored->to_text().find("resolved_by"), std::string::npos);
}

TEST_P(ApprovalQueueOnEachBackend, ClaimThenCompleteRunsTheStateMachine) {
    auto queue = open_queue(location());
    const auto id = queue->enqueue(write_request())->id;
    auto claim = queue->claim_for_execution(id, bob);
    ASSERT_TRUE(claim.ok()) << claim.error().message;
    EXPECT_EQ(claim->state, ApprovalState::approved);
    EXPECT_EQ(claim->resolved_by, "bob");
    auto done = queue->complete(id, true, boost::json::parse(R"({"ok":true,"result":{"bytes":5}})"));
    ASSERT_TRUE(done.ok()) << done.error().message;
    EXPECT_EQ(done->state, ApprovalState::executed);
    const auto stored = *queue->get(id);
    EXPECT_EQ(stored.state, ApprovalState::executed);
    EXPECT_EQ(stored.result.at("result").at("bytes").as_int64(), 5);
    EXPECT_TRUE(stored.completed_at.has_value());
    // Nothing moves an executed approval again.
    const auto again = queue->claim_for_execution(id, owner);
    EXPECT_EQ(again.error().code, "APPROVAL_ALREADY_RESOLVED");
    EXPECT_EQ(again.error().details.at("state").as_string(), "executed");
    EXPECT_THAT(again.error().message, HasSubstr("already executed (resolved by bob)"));
    EXPECT_EQ(queue->complete(id, false, nullptr).error().code, "APPROVAL_NOT_CLAIMED");
    EXPECT_EQ(queue->reject(id, owner, "too late").error().code, "APPROVAL_ALREADY_RESOLVED");
}

TEST_P(ApprovalQueueOnEachBackend, AFailedExecutionKeepsItsReasonAndResult) {
    auto queue = open_queue(location());
    const auto id = queue->enqueue(write_request())->id;
    ASSERT_TRUE(queue->claim_for_execution(id, owner).ok());
    auto failed = queue->complete(id, false, boost::json::parse(R"({"ok":false,"error":{"code":"TRUST_TOO_LOW"}})"),
                                  "policy re-check refused it: TRUST_TOO_LOW");
    ASSERT_TRUE(failed.ok());
    const auto stored = *queue->get(id);
    EXPECT_EQ(stored.state, ApprovalState::failed);
    EXPECT_EQ(stored.reason, "policy re-check refused it: TRUST_TOO_LOW");
    EXPECT_EQ(stored.resolved_by, "owner");
}

TEST_P(ApprovalQueueOnEachBackend, OnlyTheRequesterOrAnOwnerMayResolve) {
    auto queue = open_queue(location());
    const auto id = queue->enqueue(write_request("bob"))->id;
    auto refused = queue->claim_for_execution(id, carol);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "NOT_ALLOWED_TO_RESOLVE");
    EXPECT_THAT(refused.error().message, HasSubstr("only the requesting user or an owner"));
    EXPECT_EQ(queue->reject(id, carol, "no").error().code, "NOT_ALLOWED_TO_RESOLVE");
    EXPECT_EQ(queue->get(id)->state, ApprovalState::pending);  // the refusal changed nothing
    EXPECT_TRUE(queue->claim_for_execution(id, owner).ok());
    const auto own = queue->enqueue(write_request("bob"))->id;
    EXPECT_TRUE(queue->reject(own, bob, "changed my mind").ok());
}

TEST_P(ApprovalQueueOnEachBackend, RejectIsFinal) {
    auto queue = open_queue(location());
    const auto id = queue->enqueue(write_request())->id;
    auto rejected = queue->reject(id, owner, "not during the freeze");
    ASSERT_TRUE(rejected.ok());
    const auto stored = *queue->get(id);
    EXPECT_EQ(stored.state, ApprovalState::rejected);
    EXPECT_EQ(stored.reason, "not during the freeze");
    EXPECT_EQ(stored.resolved_by, "owner");
    auto claim = queue->claim_for_execution(id, owner);
    EXPECT_EQ(claim.error().code, "APPROVAL_ALREADY_RESOLVED");
    EXPECT_EQ(claim.error().details.at("state").as_string(), "rejected");
}

TEST_P(ApprovalQueueOnEachBackend, ExpiredApprovalsNeverRun) {
    ManualClock clock;
    auto queue = open_queue(location(), {std::chrono::minutes(10), clock.function(), nullptr});
    const auto late = queue->enqueue(write_request())->id;
    const auto swept = queue->enqueue(write_request())->id;
    clock.advance(std::chrono::minutes(9));
    const auto fresh = queue->enqueue(write_request())->id;
    clock.advance(std::chrono::minutes(1));  // exactly at expires_at of the first two
    auto claim = queue->claim_for_execution(late, owner);
    ASSERT_FALSE(claim.ok());
    EXPECT_EQ(claim.error().code, "APPROVAL_EXPIRED");
    EXPECT_THAT(claim.error().message, HasSubstr("repeat the original call"));
    EXPECT_EQ(queue->get(late)->state, ApprovalState::expired);
    EXPECT_EQ(queue->reject(swept, owner, "x").error().code, "APPROVAL_EXPIRED");
    auto expired = queue->expire_due(TimePoint(std::chrono::milliseconds(clock.ms->load())));
    ASSERT_TRUE(expired.ok());
    EXPECT_TRUE(expired->empty());  // both were already marked when touched
    clock.advance(std::chrono::minutes(9));
    expired = queue->expire_due();
    ASSERT_TRUE(expired.ok());
    EXPECT_EQ(*expired, std::vector<std::string>{fresh});
    EXPECT_EQ(queue->get(fresh)->state, ApprovalState::expired);
    EXPECT_THAT(queue->get(fresh)->reason, HasSubstr("expired at"));
}

TEST_P(ApprovalQueueOnEachBackend, ListFiltersByUserAndStateNewestFirst) {
    ManualClock clock;
    auto queue = open_queue(location(), {std::chrono::hours(24), clock.function(), nullptr});
    const auto a = queue->enqueue(write_request("bob"))->id;
    clock.advance(std::chrono::seconds(1));
    const auto b = queue->enqueue(write_request("carol"))->id;
    clock.advance(std::chrono::seconds(1));
    const auto c = queue->enqueue(write_request("bob"))->id;
    ASSERT_TRUE(queue->reject(c, bob, "").ok());
    auto all = queue->list();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 3u);
    EXPECT_EQ((*all)[0].id, c);
    EXPECT_EQ((*all)[2].id, a);
    auto pending = queue->list({std::nullopt, {ApprovalState::pending}, 0});
    ASSERT_EQ(pending->size(), 2u);
    auto bobs_pending = queue->list({std::string("bob"), {ApprovalState::pending}, 0});
    ASSERT_EQ(bobs_pending->size(), 1u);
    EXPECT_EQ(bobs_pending->front().id, a);
    EXPECT_EQ(queue->list({std::nullopt, {}, 1})->front().id, c);
    EXPECT_EQ(queue->list({std::string("carol"), {}, 0})->front().id, b);
}

// Two approvers race on one approval through separate connections (as two processes would):
// exactly one gets the claim; the other is told it was already approved.
TEST_P(ApprovalQueueOnEachBackend, TwoRacingApproversGetExactlyOneClaim) {
    const auto where = location();
    auto first = open_queue(where);
    auto second = open_queue(where);
    for (int round = 0; round < 50; ++round) {
        const auto id = first->enqueue(write_request())->id;
        std::atomic<bool> go{false};
        Result<ApprovalRecord> results[2] = {Error{}, Error{}};
        std::thread racers[2];
        ApprovalQueue* queues[2] = {first.get(), second.get()};
        for (int i = 0; i < 2; ++i) {
            racers[i] = std::thread([&, i] {
                while (!go.load()) std::this_thread::yield();
                results[i] = queues[i]->claim_for_execution(id, i == 0 ? owner : bob);
            });
        }
        go = true;
        for (auto& t : racers) t.join();
        const int winners = static_cast<int>(results[0].ok()) + static_cast<int>(results[1].ok());
        ASSERT_EQ(winners, 1) << "round " << round;
        const auto& loser = results[0].ok() ? results[1] : results[0];
        EXPECT_EQ(loser.error().code, "APPROVAL_ALREADY_RESOLVED");
        EXPECT_EQ(loser.error().details.at("state").as_string(), "approved");
        ASSERT_TRUE(first->complete(id, true, nullptr).ok());
        EXPECT_EQ(second->get(id)->state, ApprovalState::executed);
    }
}

// What every front end shows: a user sees their own approvals, an owner everyone's; another
// user's id is not found (not forbidden: its existence is not told); expired ones are marked first.
TEST_P(ApprovalQueueOnEachBackend, AUserSeesTheirOwnApprovalsAnOwnerAllAndExpiredOnesAsExpired) {
    ManualClock clock;
    auto queue = open_queue(location(), {std::chrono::minutes(10), clock.function(), nullptr});
    const auto bobs = queue->enqueue(write_request("bob"))->id;
    clock.advance(std::chrono::minutes(6));
    const auto carols = queue->enqueue(write_request("carol"))->id;
    clock.advance(std::chrono::minutes(6));  // bob's has expired unseen; carol's has not

    auto own = queue->get_visible(bobs, bob);
    ASSERT_TRUE(own.ok()) << own.error().message;
    EXPECT_EQ(own->state, ApprovalState::expired);
    auto others = queue->get_visible(carols, bob);
    ASSERT_FALSE(others.ok());
    EXPECT_EQ(others.error().code, "APPROVAL_NOT_FOUND");
    EXPECT_TRUE(queue->get_visible(carols, owner).ok());

    auto bobs_list = queue->list_visible({}, bob);
    ASSERT_TRUE(bobs_list.ok()) << bobs_list.error().message;
    ASSERT_EQ(bobs_list->size(), 1u);
    EXPECT_EQ(bobs_list->front().id, bobs);
    ApprovalFilter pending;
    pending.states = {ApprovalState::pending};
    auto all_pending = queue->list_visible(pending, owner);
    ASSERT_TRUE(all_pending.ok());
    ASSERT_EQ(all_pending->size(), 1u);
    EXPECT_EQ(all_pending->front().id, carols);
    // Even asking for someone else's by name, a user gets only their own.
    ApprovalFilter carols_filter;
    carols_filter.user_id = "carol";
    auto narrowed = queue->list_visible(carols_filter, bob);
    ASSERT_TRUE(narrowed.ok());
    ASSERT_EQ(narrowed->size(), 1u);
    EXPECT_EQ(narrowed->front().id, bobs);
}

TEST_P(ApprovalQueueOnEachBackend, TheDatabaseRefusesIllegalTransitionsEvenFromOutside) {
    const auto where = location();
    auto queue = open_queue(where);
    const auto id = queue->enqueue(write_request())->id;
    ASSERT_TRUE(queue->claim_for_execution(id, owner).ok());
    ASSERT_TRUE(queue->complete(id, true, nullptr).ok());
    const std::string sql = "UPDATE pending_decisions SET state = 'claimed' WHERE id = '" + id + "'";
    EXPECT_THAT(refusal_of_sql_from_outside(where, sql), HasSubstr("illegal decision state transition"));
    EXPECT_EQ(queue->get(id)->state, ApprovalState::executed);
}

TEST_P(ApprovalQueueOnEachBackend, ReopeningMarksAClaimOfALiveProcessAsStillRunning) {
    const auto where = location();
    auto queue = open_queue(where);
    const auto id = queue->enqueue(write_request())->id;
    ASSERT_TRUE(queue->claim_for_execution(id, owner).ok());
    // Another queue opening the same file (a CLI beside the daemon) must not touch a live claim.
    auto other = open_queue(where);
    EXPECT_EQ(other->get(id)->state, ApprovalState::approved);
    EXPECT_TRUE(other->recover_interrupted()->empty());
    EXPECT_TRUE(queue->complete(id, true, nullptr).ok());
}

TEST_P(ApprovalQueueOnEachBackend, EveryTransitionIsAudited) {
    auto audit = audit::AuditLog::open(dir.path() / "audit");
    ASSERT_TRUE(audit.ok());
    auto queue = open_queue(location(), {std::chrono::hours(24), {}, audit->get()});
    const auto id = queue->enqueue(write_request())->id;
    ASSERT_TRUE(queue->claim_for_execution(id, owner).ok());
    ASSERT_TRUE(queue->complete(id, true, nullptr).ok());
    const auto rejected = queue->enqueue(write_request())->id;
    ASSERT_TRUE(queue->reject(rejected, bob, "no").ok());
    auto log = audit::read_audit_log(dir.path() / "audit",
                                     {std::nullopt, std::nullopt, std::string("approval"), std::nullopt});
    ASSERT_TRUE(log.ok());
    std::vector<std::string> transitions;
    for (const auto& record : log->records) transitions.emplace_back(record.at("transition").as_string());
    EXPECT_EQ(transitions, (std::vector<std::string>{"requested", "approved", "executed", "requested", "rejected"}));
    EXPECT_EQ(log->records[1].at("actor").as_string(), "owner");
    EXPECT_EQ(log->records[1].at("approval_id").as_string(), id);
}

TEST(ApprovalPreview, ShowsKeyArgumentsShortenedAndSecretsRedacted) {
    auto spec = unit_testing::fs_write_skill();
    const auto args = boost::json::parse(R"({"content":")" + std::string(100, 'x') +
                                         R"(","path":"notes/a.md","api_token":"abc","n":3})");
    const std::string preview = make_approval_preview(spec, args);
    EXPECT_THAT(preview, ::testing::StartsWith(R"(Write a file (fs_write): path="notes/a.md", content="xxxx)"));
    EXPECT_THAT(preview, HasSubstr("… (100 chars)"));
    EXPECT_THAT(preview, HasSubstr("api_token=[redacted]"));
    EXPECT_THAT(preview, HasSubstr("n=3"));
    EXPECT_EQ(preview.find("abc"), std::string::npos);
}

auth::Credential token(std::string id, auth::Scopes scopes) {
    auth::Credential c;
    c.token_id = std::move(id);
    c.scopes = scopes;
    return c;
}

TEST_P(ApprovalQueueOnEachBackend, ResolvingNeedsTheApproveScopeAndNeverTheAskingToken) {
    auto queue = open_queue(location());
    auto request = write_request();
    request.requested_token = "agent0000001";
    const auto call_and_approve = auth::Scopes::only(auth::Scope::call).with(auth::Scope::approve);

    auto id = queue->enqueue(request)->id;
    EXPECT_EQ(queue->get(id)->requested_token, "agent0000001");
    const Resolver call_only{"bob", auth::Role::standard, token("other0000001", auth::Scopes::only(auth::Scope::call)),
                             false};
    EXPECT_EQ(queue->claim_for_execution(id, call_only).error().code, "MISSING_SCOPE");
    EXPECT_EQ(queue->reject(id, call_only, "no").error().code, "MISSING_SCOPE");
    const Resolver itself{"bob", auth::Role::standard, token("agent0000001", call_and_approve), false};
    EXPECT_EQ(queue->claim_for_execution(id, itself).error().code, "SELF_APPROVAL");
    EXPECT_EQ(queue->get(id)->state, ApprovalState::pending);
    // The person a host prompt reached (MCP elicitation), an admin token, the terminal: they may.
    EXPECT_TRUE(queue->claim_for_execution(id, Resolver{"bob", auth::Role::standard, itself.credential, true}).ok());
    auto second = queue->enqueue(request)->id;
    const Resolver admin{"bob", auth::Role::standard, token("agent0000001", auth::Scopes::all()), false};
    EXPECT_TRUE(queue->claim_for_execution(second, admin).ok());
    auto third = queue->enqueue(request)->id;
    EXPECT_TRUE(queue->claim_for_execution(third, bob).ok());  // no token: the user at the terminal
}

TEST_P(ApprovalQueueOnEachBackend, WithoutRequireApproverAnyCredentialOfTheUserResolves) {
    ApprovalQueueOptions options;
    options.require_approver = false;
    auto queue = open_queue(location(), options);
    auto request = write_request();
    request.requested_token = "agent0000001";
    auto id = queue->enqueue(request)->id;
    const Resolver itself{"bob", auth::Role::standard, token("agent0000001", auth::Scopes::only(auth::Scope::call)),
                          false};
    EXPECT_TRUE(queue->claim_for_execution(id, itself).ok());
}

// The call ran, then the database refused the outcome (here: another process holds the write lock
// past the busy timeout, as a full or read-only disk refuses it). The approval must not stay
// `approved`: the outcome is stored as soon as the database takes writes again.
TEST(ApprovalQueueOutcomes, AnOutcomeTheDatabaseRefusedIsStoredOnceItTakesWritesAgain) {
    TempDir dir;
    const auto file = dir.path() / "skillhost.db";
    auto queue = open_queue(db::StorageLocation::sqlite(file));
    ASSERT_TRUE(queue);
    auto queued = queue->enqueue(write_request());
    ASSERT_TRUE(queued.ok()) << queued.error().message;
    ASSERT_TRUE(queue->claim_for_execution(queued->id, owner).ok());

    auto blocker = db::SqliteConnection::open(file);
    ASSERT_TRUE(blocker) << blocker.error().message;
    ASSERT_TRUE(blocker->exec("BEGIN EXCLUSIVE"));
    auto refused = queue->complete(queued->id, true, boost::json::object{{"ok", true}});
    ASSERT_FALSE(refused.ok()) << "the write lock did not stop the update";
    EXPECT_EQ(refused.error().code, "DATABASE_ERROR");
    ASSERT_TRUE(blocker->exec("ROLLBACK"));

    auto now = queue->get(queued->id);  // any use of the queue stores what waits
    ASSERT_TRUE(now.ok()) << now.error().message;
    EXPECT_EQ(now->state, ApprovalState::executed);
    EXPECT_EQ(queue->record_unrecorded_outcomes(), 0u);
}

}  // namespace
}  // namespace skillhost::decisions
