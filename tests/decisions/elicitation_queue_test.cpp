// The pending-elicitation queue on the SQLite file of a fresh home and on a fresh PostgreSQL
// database: answers counted exactly once, checked against the form, expiry, who may answer, the
// database's own refusal of illegal transitions, and the audit trail.
#include "db/postgres_connection.hpp"
#include "audit/audit_log.hpp"
#include "audit/audit_reader.hpp"
#include "decisions/elicitation_queue.hpp"
#include "support/postgres_server.hpp"
#include "sql_from_outside.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <thread>

namespace skillhost::decisions {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;
using testing::TempDir;

const Resolver owner{"owner", auth::Role::owner};
const Resolver bob{"bob", auth::Role::standard};
const Resolver carol{"carol", auth::Role::standard};

ElicitationAsk who_is_asking(std::string user = "bob") {
    ElicitationAsk ask;
    ask.user_id = std::move(user);
    ask.skill_id = "rich_elicit";
    ask.arguments = json::object();
    ask.requested_by = auth::Requester::api();
    auto request = parse_elicitation_request(R"({"message":"Who is asking?","requestedSchema":{"type":"object",
        "properties":{"name":{"type":"string","minLength":1},"color":{"type":"string","enum":["red","green"]},
        "count":{"type":"integer","minimum":1,"maximum":10}},"required":["name"]}})");
    EXPECT_TRUE(request.ok()) << request.error().message;
    if (request) ask.request = request.value();
    return ask;
}

ElicitationAnswer accept(std::string_view content) {
    return ElicitationAnswer{"accept", json::parse(content).as_object()};
}

struct ManualClock {
    std::shared_ptr<std::atomic<std::int64_t>> ms = std::make_shared<std::atomic<std::int64_t>>(1'800'000'000'000);
    std::function<TimePoint()> function() const {
        auto state = ms;
        return [state] { return TimePoint(std::chrono::milliseconds(state->load())); };
    }
    void advance(std::chrono::milliseconds d) { *ms += d.count(); }
};

std::unique_ptr<ElicitationQueue> open_queue(const db::StorageLocation& db, ElicitationQueueOptions options = {}) {
    auto queue = ElicitationQueue::open(db, std::move(options));
    EXPECT_TRUE(queue.ok()) << queue.error().message;
    return queue.ok() ? std::move(*queue) : nullptr;
}

class ElicitationQueueOnEachBackend : public ::skillhost::testing::OnEachBackend {
protected:
    TempDir dir;
};

SKILLHOST_ON_EACH_BACKEND(ElicitationQueueOnEachBackend);

TEST_P(ElicitationQueueOnEachBackend, AnAcceptedAnswerIsStoredOnceAndCompleted) {
    auto queue = open_queue(location());
    auto asked = queue->enqueue(who_is_asking());
    ASSERT_TRUE(asked.ok()) << asked.error().message;
    EXPECT_THAT(asked->id, ::testing::StartsWith("eli-"));
    EXPECT_EQ(asked->state, ElicitationState::pending);

    auto answered = queue->answer(asked->id, bob, accept(R"({"name":"Ada","count":3})"));
    ASSERT_TRUE(answered.ok()) << answered.error().message;
    EXPECT_EQ(answered->state, ElicitationState::answered);
    const auto stored = queue->get(asked->id);
    ASSERT_TRUE(stored.ok());
    ASSERT_TRUE(stored->answer.has_value());
    EXPECT_EQ(json::serialize(stored->answer->to_json()), R"({"action":"accept","content":{"name":"Ada","count":3}})");
    EXPECT_EQ(stored->message, "Who is asking?");
    EXPECT_EQ(stored->answered_by, "bob");

    auto again = queue->answer(asked->id, bob, accept(R"({"name":"Eve"})"));
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, "ELICITATION_ALREADY_ANSWERED");
    EXPECT_EQ(again.error().details.at("state").as_string(), "answered");

    ASSERT_TRUE(queue->complete(asked->id, true, json::object{{"ok", true}}).ok());
    EXPECT_EQ(queue->get(asked->id)->state, ElicitationState::completed);
    EXPECT_EQ(queue->complete(asked->id, true, nullptr).error().code, "ELICITATION_NOT_ANSWERED");
}

TEST_P(ElicitationQueueOnEachBackend, AnswersThatBreakTheFormNameTheFieldAndChangeNothing) {
    auto queue = open_queue(location());
    const auto id = queue->enqueue(who_is_asking())->id;
    const std::pair<const char*, const char*> wrong[] = {
        {R"({"count":3})", "name"},                         // required field missing
        {R"({"name":"Ada","color":"blue"})", "color"},      // not one of the choices
        {R"({"name":"Ada","count":"three"})", "count"},     // wrong type
        {R"({"name":"Ada","count":11})", "count"},          // above the maximum
        {R"({"name":"Ada","shoe_size":44})", "shoe_size"},  // not in the form
        {R"({"name":""})", "name"},                         // shorter than minLength
        {R"({"name":{"first":"Ada"}})", "name"},            // not a primitive
    };
    for (const auto& [content, field] : wrong) {
        auto refused = queue->answer(id, bob, accept(content));
        ASSERT_FALSE(refused.ok()) << content;
        EXPECT_EQ(refused.error().code, "INVALID_ELICITATION_ANSWER") << content;
        EXPECT_EQ(refused.error().details.at("field").as_string(), field) << content;
        EXPECT_THAT(refused.error().message, HasSubstr(field)) << content;
    }
    const std::string huge = R"({"name":")" + std::string(kMaxElicitationAnswerBytes, 'x') + R"("})";
    auto oversized = queue->answer(id, bob, accept(huge));
    ASSERT_FALSE(oversized.ok());
    EXPECT_EQ(oversized.error().code, "INVALID_ELICITATION_ANSWER");
    EXPECT_EQ(oversized.error().details.at("field").as_string(), "content");
    EXPECT_EQ(queue->get(id)->state, ElicitationState::pending);
    // A decline carries no content, so nothing is checked against the form.
    auto declined = queue->answer(id, bob, ElicitationAnswer{"decline", {}});
    ASSERT_TRUE(declined.ok()) << declined.error().message;
    EXPECT_EQ(json::serialize(declined->answer->to_json()), R"({"action":"decline"})");
}

TEST(ElicitationAnswerParsing, RefusesUnknownActionsAndContentThatIsNotAnObject) {
    EXPECT_EQ(parse_elicitation_answer(json::object{}).error().details.at("field").as_string(), "action");
    EXPECT_EQ(parse_elicitation_answer(json::object{{"action", "maybe"}}).error().code, "INVALID_ELICITATION_ANSWER");
    EXPECT_EQ(parse_elicitation_answer(json::object{{"action", 1}}).error().details.at("field").as_string(), "action");
    EXPECT_EQ(parse_elicitation_answer(json::object{{"action", "accept"}, {"content", "Ada"}})
                  .error()
                  .details.at("field")
                  .as_string(),
              "content");
    EXPECT_EQ(parse_elicitation_answer(json::object{{"action", "decline"}, {"content", json::object{{"a", 1}}}})
                  .error()
                  .details.at("field")
                  .as_string(),
              "content");
    auto cancel = parse_elicitation_answer(json::object{{"action", "cancel"}});
    ASSERT_TRUE(cancel.ok());
    EXPECT_EQ(cancel->action, "cancel");
}

TEST_P(ElicitationQueueOnEachBackend, AUserSeesTheirOwnQuestionsAnOwnerAllAndExpiredOnesAsExpired) {
    ManualClock clock;
    ElicitationQueueOptions options;
    options.ttl = std::chrono::minutes(10);
    options.clock = clock.function();
    auto queue = open_queue(location(), options);
    const auto bobs = queue->enqueue(who_is_asking("bob"))->id;
    clock.advance(std::chrono::minutes(6));
    const auto carols = queue->enqueue(who_is_asking("carol"))->id;
    clock.advance(std::chrono::minutes(6));

    auto own = queue->get_visible(bobs, bob);
    ASSERT_TRUE(own.ok()) << own.error().message;
    EXPECT_EQ(own->state, ElicitationState::expired);
    auto others = queue->get_visible(carols, bob);
    ASSERT_FALSE(others.ok());
    EXPECT_EQ(others.error().code, "ELICITATION_NOT_FOUND");
    EXPECT_TRUE(queue->get_visible(carols, owner).ok());
    auto listed = queue->list_visible({}, bob);
    ASSERT_TRUE(listed.ok());
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ(listed->front().id, bobs);
    EXPECT_EQ(queue->list_visible({}, owner)->size(), 2u);
}

TEST_P(ElicitationQueueOnEachBackend, OnlyTheAskedUserOrAnOwnerMayAnswerAndATokenNeedsTheCallScope) {
    auto queue = open_queue(location());
    const auto id = queue->enqueue(who_is_asking())->id;
    auto refused = queue->answer(id, carol, accept(R"({"name":"Carol"})"));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "NOT_ALLOWED_TO_ANSWER");
    Resolver approver_only = bob;
    approver_only.credential.token_id = "approver0001";
    approver_only.credential.scopes = auth::Scopes::only(auth::Scope::approve);
    EXPECT_EQ(queue->answer(id, approver_only, accept(R"({"name":"Bob"})")).error().code, "MISSING_SCOPE");
    EXPECT_EQ(queue->get(id)->state, ElicitationState::pending);
    ASSERT_TRUE(queue->answer(id, owner, accept(R"({"name":"Owner"})")).ok());
    EXPECT_EQ(queue->get(id)->answered_by, "owner");
    EXPECT_EQ(queue->answer("eli-0000000000000000", owner, accept("{}")).error().code, "ELICITATION_NOT_FOUND");
}

TEST_P(ElicitationQueueOnEachBackend, AnExpiredQuestionCannotBeAnswered) {
    ManualClock clock;
    auto queue = open_queue(location(), {std::chrono::minutes(5), clock.function(), nullptr});
    const auto first = queue->enqueue(who_is_asking())->id;
    const auto second = queue->enqueue(who_is_asking())->id;
    clock.advance(std::chrono::minutes(5));
    auto late = queue->answer(first, bob, accept(R"({"name":"Ada"})"));
    ASSERT_FALSE(late.ok());
    EXPECT_EQ(late.error().code, "ELICITATION_EXPIRED");
    EXPECT_EQ(queue->get(first)->state, ElicitationState::expired);
    auto expired = queue->expire_due();
    ASSERT_TRUE(expired.ok());
    EXPECT_EQ(*expired, std::vector<std::string>{second});
    EXPECT_EQ(queue->answer(second, bob, accept(R"({"name":"Ada"})")).error().code, "ELICITATION_ALREADY_ANSWERED");
}

TEST_P(ElicitationQueueOnEachBackend, AUserCannotPileUpMoreThanTheLimit) {
    ElicitationQueueOptions options;
    options.max_pending_per_user = 3;
    auto queue = open_queue(location(), options);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(queue->enqueue(who_is_asking()).ok());
    auto full = queue->enqueue(who_is_asking());
    ASSERT_FALSE(full.ok());
    EXPECT_EQ(full.error().code, "ELICITATION_QUEUE_FULL");
    EXPECT_TRUE(queue->enqueue(who_is_asking("carol")).ok());  // per user
}

// Two answers race through separate connections (as two processes or instances would): exactly
// one counts, the other is told the question was already answered.
TEST_P(ElicitationQueueOnEachBackend, TwoRacingAnswersCountExactlyOnce) {
    const auto where = location();
    auto first = open_queue(where);
    auto second = open_queue(where);
    for (int round = 0; round < 30; ++round) {
        const auto id = first->enqueue(who_is_asking())->id;
        std::atomic<bool> go{false};
        Result<ElicitationRecord> results[2] = {Error{}, Error{}};
        ElicitationQueue* queues[2] = {first.get(), second.get()};
        std::thread racers[2];
        for (int i = 0; i < 2; ++i) {
            racers[i] = std::thread([&, i] {
                while (!go.load()) std::this_thread::yield();
                results[i] = queues[i]->answer(id, i == 0 ? owner : bob,
                                               accept(i == 0 ? R"({"name":"Owner"})" : R"({"name":"Bob"})"));
            });
        }
        go = true;
        for (auto& t : racers) t.join();
        ASSERT_EQ(static_cast<int>(results[0].ok()) + static_cast<int>(results[1].ok()), 1) << "round " << round;
        const auto& loser = results[0].ok() ? results[1] : results[0];
        EXPECT_EQ(loser.error().code, "ELICITATION_ALREADY_ANSWERED");
        const auto& winner = results[0].ok() ? results[0] : results[1];
        EXPECT_EQ(second->get(id)->answered_by, winner->answered_by);
        ASSERT_TRUE(first->complete(id, true, nullptr).ok());
    }
}

TEST_P(ElicitationQueueOnEachBackend, TheDatabaseRefusesIllegalTransitionsEvenFromOutside) {
    const auto where = location();
    auto queue = open_queue(where);
    const auto id = queue->enqueue(who_is_asking())->id;
    ASSERT_TRUE(queue->answer(id, bob, accept(R"({"name":"Ada"})")).ok());
    ASSERT_TRUE(queue->complete(id, true, nullptr).ok());
    const std::string sql = "UPDATE pending_decisions SET state = 'pending' WHERE id = '" + id + "'";
    EXPECT_THAT(refusal_of_sql_from_outside(where, sql), HasSubstr("illegal decision state transition"));
    EXPECT_EQ(queue->get(id)->state, ElicitationState::completed);
}

TEST_P(ElicitationQueueOnEachBackend, AskedAnsweredAndCompletedAreAuditedWithoutTheAnswersValues) {
    auto audit = audit::AuditLog::open(dir.path() / "audit");
    ASSERT_TRUE(audit.ok());
    auto queue = open_queue(location(), {std::chrono::hours(24), {}, audit->get()});
    const auto id = queue->enqueue(who_is_asking())->id;
    ASSERT_TRUE(queue->answer(id, bob, accept(R"({"name":"secret-name-42"})")).ok());
    ASSERT_TRUE(queue->complete(id, true, nullptr).ok());
    auto log = audit::read_audit_log(dir.path() / "audit",
                                     {std::nullopt, std::nullopt, std::string("elicitation"), std::nullopt});
    ASSERT_TRUE(log.ok());
    std::vector<std::string> transitions;
    for (const auto& record : log->records) {
        transitions.emplace_back(record.at("transition").as_string());
        EXPECT_EQ(json::serialize(record).find("secret-name-42"), std::string::npos);
    }
    EXPECT_EQ(transitions, (std::vector<std::string>{"asked", "answered", "completed"}));
    EXPECT_EQ(json::serialize(log->records[1].at("fields")), R"(["name"])");
}

// Several instances on one database: an answer's instance that died (on another machine, so its
// process cannot be looked up) is told by the judge the elected sweeper passes; the question is
// failed as interrupted, never re-run, and a live answerer's question is left alone.
TEST_P(ElicitationQueueOnEachBackend, AQuestionWhoseAnsweringInstanceDiedIsFailedByTheJudgeNotReRun) {
    auto queue = open_queue(location());
    const auto orphaned = queue->enqueue(who_is_asking())->id;
    const auto driven = queue->enqueue(who_is_asking())->id;
    ASSERT_TRUE(queue->answer(orphaned, bob, accept(R"({"name":"Ada"})")).ok());
    ASSERT_TRUE(queue->answer(driven, bob, accept(R"({"name":"Bob"})")).ok());

    // This process answered both and is alive: by process identity alone nothing is recovered.
    EXPECT_TRUE(queue->recover_interrupted()->empty());
    // The judge says the answerer of the first is gone (its announcement lapsed).
    int asked = 0;
    auto recovered = queue->recover_interrupted([&](const ProcessIdentity&) { return ++asked != 1; });
    ASSERT_TRUE(recovered.ok()) << recovered.error().message;
    ASSERT_EQ(recovered->size(), 1u);
    const std::string gone = recovered->front();
    const std::string alive = gone == orphaned ? driven : orphaned;
    EXPECT_EQ(queue->get(gone)->state, ElicitationState::failed);
    EXPECT_NE(queue->get(gone)->reason.find("interrupted"), std::string::npos) << queue->get(gone)->reason;
    EXPECT_EQ(queue->get(alive)->state, ElicitationState::answered);
    // Once its answerer is judged gone too, the other follows; the first, failed already, is not
    // recovered twice.
    EXPECT_EQ(*queue->recover_interrupted([](const ProcessIdentity&) { return false; }),
              std::vector<std::string>{alive});
}

}  // namespace
}  // namespace skillhost::decisions
