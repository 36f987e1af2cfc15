// The pause a direct call's questions go through (exec/elicitation_pause.hpp), against a real
// elicitation queue in a SQLite file: answers an earlier run got are given back in order for the
// same question, a changed or new question is queued with the answers that still hold, a skill
// told to stop is told again, and a call may not ask forever.
#include "exec/elicitation_pause.hpp"
#include "plugin/error_codes.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace skillhost::exec {
namespace {

namespace json = boost::json;

std::string question(std::string_view message, std::string_view field = "name") {
    return json::serialize(json::object{
        {"message", message},
        {"requestedSchema",
         json::object{{"type", "object"}, {"properties", json::object{{field, json::object{{"type", "string"}}}}}}}});
}

json::object answered(std::string_view message, std::string_view name) {
    return json::object{{"request", json::parse(question(message))},
                        {"answer", json::object{{"action", "accept"}, {"content", json::object{{"name", name}}}}}};
}

class ElicitationPauseTest : public ::testing::Test {
protected:
    void SetUp() override {
        auto opened = decisions::ElicitationQueue::open(db::StorageLocation::sqlite(dir.path() / "skillhost.db"));
        ASSERT_TRUE(opened.ok()) << opened.error().message;
        queue = std::move(opened.value());
    }
    decisions::ElicitationAsk call() const {
        decisions::ElicitationAsk ask;
        ask.user_id = "bob";
        ask.skill_id = "ask_twice";
        ask.arguments = json::object{{"n", 1}};
        return ask;
    }
    testing::TempDir dir{"skillhost-pause"};
    std::unique_ptr<decisions::ElicitationQueue> queue;
    const std::atomic<bool> ended{false};
};

// A front end that answers every question the same way.
class FrontEnd final : public plugin::CallServices {
public:
    explicit FrontEnd(Result<std::string> answer) : answer_(std::move(answer)) {}
    Result<std::string> elicit(std::string_view, const std::atomic<bool>&) override { return answer_; }

private:
    const Result<std::string> answer_;
};

// `pause`'s elicit() for a call whose front end cannot ask.
auto asker(ElicitationPause& pause) {
    return [&pause](std::string_view request_json, const std::atomic<bool>& call_ended) {
        return pause.answer(request_json, call_ended, nullptr);
    };
}

TEST_F(ElicitationPauseTest, AFirstQuestionIsQueuedAndTheSkillToldToStop) {
    ElicitationPause pause(*queue, call(), {});
    auto elicit = asker(pause);
    auto first = elicit(question("Who?"), ended);
    ASSERT_FALSE(first.ok());
    EXPECT_EQ(first.error().code, "ELICITATION_PENDING");
    ASSERT_TRUE(pause.queued().has_value());
    EXPECT_EQ(pause.queued()->message, "Who?");
    EXPECT_EQ(pause.queued()->skill_id, "ask_twice");
    // Asking again after being told to stop queues nothing more.
    EXPECT_EQ(elicit(question("Where?"), ended).error().code, "ELICITATION_PENDING");
    EXPECT_EQ(queue->list()->size(), 1u);
    const Error required = elicitation_required(*pause.queued());
    EXPECT_EQ(required.code, "ELICITATION_REQUIRED");
    EXPECT_EQ(required.details.at("elicitation_id").as_string(), pause.queued()->id);
}

TEST_F(ElicitationPauseTest, ARunAgainGetsItsAnswersInOrderAndQueuesTheNextQuestionWithThem) {
    ElicitationPause pause(*queue, call(), json::array{answered("Who?", "Ada")});
    auto elicit = asker(pause);
    auto first = elicit(question("Who?"), ended);
    ASSERT_TRUE(first.ok()) << first.error().message;
    EXPECT_EQ(first.value(), R"({"action":"accept","content":{"name":"Ada"}})");
    auto second = elicit(question("Where?"), ended);
    EXPECT_EQ(second.error().code, "ELICITATION_PENDING");
    ASSERT_TRUE(pause.queued().has_value());
    EXPECT_EQ(pause.queued()->message, "Where?");
    ASSERT_EQ(pause.queued()->prior_answers.size(), 1u);
    EXPECT_EQ(pause.queued()->prior_answers[0], answered("Who?", "Ada"));
}

TEST_F(ElicitationPauseTest, AChangedQuestionIsAskedAgainAndLaterAnswersAreDropped) {
    ElicitationPause pause(*queue, call(), json::array{answered("Who?", "Ada"), answered("Where?", "Paris")});
    auto elicit = asker(pause);
    EXPECT_EQ(elicit(question("Who exactly?"), ended).error().code, "ELICITATION_PENDING");
    ASSERT_TRUE(pause.queued().has_value());
    EXPECT_EQ(pause.queued()->message, "Who exactly?");
    EXPECT_TRUE(pause.queued()->prior_answers.empty());
}

TEST_F(ElicitationPauseTest, TheFrontEndsOwnAnswerComesFirstAndOnlyItsUnavailabilityQueues) {
    ElicitationPause asks_client(*queue, call(), {});
    auto client = std::make_shared<FrontEnd>(std::string(R"({"action":"decline"})"));
    auto direct = with_pause(std::shared_ptr<ElicitationPause>(&asks_client, [](ElicitationPause*) {}), client);
    EXPECT_EQ(direct->elicit(question("Who?"), ended).value(), R"({"action":"decline"})");
    EXPECT_FALSE(asks_client.queued().has_value());

    ElicitationPause cannot_ask(*queue, call(), {});
    auto no_capability = std::make_shared<FrontEnd>(Error{errors::kElicitationUnavailable, "no capability"});
    auto fallback = with_pause(std::shared_ptr<ElicitationPause>(&cannot_ask, [](ElicitationPause*) {}), no_capability);
    EXPECT_EQ(fallback->elicit(question("Who?"), ended).error().code, "ELICITATION_PENDING");
    EXPECT_TRUE(cannot_ask.queued().has_value());
}

TEST_F(ElicitationPauseTest, AMalformedQuestionIsRefusedAndACallMayNotAskForever) {
    ElicitationPause pause(*queue, call(), {});
    auto elicit = asker(pause);
    EXPECT_EQ(elicit(R"({"message":"x","requestedSchema":{"type":"array"}})", ended).error().code,
              "ELICITATION_INVALID");
    EXPECT_EQ(elicit(std::string(70 * 1024, '{'), ended).error().code, "ELICITATION_INVALID");
    EXPECT_FALSE(pause.queued().has_value());

    json::array many;
    for (std::size_t i = 0; i < kMaxElicitationsPerCall; ++i) many.push_back(answered("Q" + std::to_string(i), "a"));
    ElicitationPause long_call(*queue, call(), many);
    auto ask = asker(long_call);
    for (std::size_t i = 0; i < kMaxElicitationsPerCall; ++i)
        ASSERT_TRUE(ask(question("Q" + std::to_string(i)), ended).ok()) << i;
    EXPECT_EQ(ask(question("one more"), ended).error().code, "ELICITATION_FAILED");
    EXPECT_FALSE(long_call.queued().has_value());
}

}  // namespace
}  // namespace skillhost::exec
