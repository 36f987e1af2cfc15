// The claim extractor and the check on their own: each kind of claim, and hostile input (huge
// answers, 100k quotes, deep and wide observations) that must neither crash nor take long.
#include "grounding/grounding_check.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace skillhost::grounding {
namespace {

namespace json = boost::json;
using ::testing::IsEmpty;

store::ScratchpadEntry observed(const std::string& tool, const std::string& raw_json) {
    store::ScratchpadEntry entry;
    entry.action = store::Action{tool, {}};
    store::Observation obs;
    obs.success = true;
    obs.raw = json::parse(raw_json);
    entry.observation = obs;
    return entry;
}

GroundingFacts task_facts(std::string_view goal = "How is my week looking?") {
    return GroundingFacts::from_observations({observed("task_list", R"({"tasks":[
            {"id":1,"title":"Water the plants","status":"open","priority":"high","tags":["home"],"due":"2026-11-28"},
            {"id":2,"title":"Call the dentist","status":"done","priority":"low","tags":[],"due":null},
            {"id":3,"title":"File the tax return","status":"open","priority":"high","tags":["admin"],"due":"2026-12-05T17:30:00"}],
            "count":3,"total":3})")},
                                             goal, std::tuple{2026, 11, 24});
}

std::vector<std::string> texts(std::string_view answer, const GroundingFacts& facts) {
    std::vector<std::string> out;
    for (const auto& c : unsupported_claims(answer, facts)) out.push_back(c.text);
    return out;
}

TEST(GroundingCheck, CountsMustMatchTheListOrTheGroupTheyName) {
    const auto facts = task_facts();
    EXPECT_THAT(texts("You have three tasks, two of them open and 2 high-priority ones.", facts), IsEmpty());
    EXPECT_THAT(texts("You have 3 tasks: 2 open tasks and one done task.", facts), IsEmpty());
    EXPECT_THAT(texts("You have four tasks.", facts), ::testing::ElementsAre("four"));
    EXPECT_THAT(texts("You have 3 open tasks.", facts), ::testing::ElementsAre("3"));
}

// Shares come from categories (status, priority, tags), never from time stamps that records
// written in the same second happen to share (this made a liar's "60%" pass now and then).
TEST(GroundingCheck, PercentagesAreSharesOfCategoriesNotOfTimeStamps) {
    const auto facts = GroundingFacts::from_observations({observed("task_list", R"({"tasks":[
            {"id":1,"title":"A","status":"done","created":"2026-11-24T04:37:52Z"},
            {"id":2,"title":"B","status":"done","created":"2026-11-24T04:37:52Z"},
            {"id":3,"title":"C","status":"open","created":"2026-11-24T04:37:52Z"},
            {"id":4,"title":"D","status":"open","created":"2026-11-24T04:37:53Z"},
            {"id":5,"title":"E","status":"open","created":"2026-11-24T04:37:53Z"}],
            "count":5,"total":5})")},
                                                         "How far along am I?", std::tuple{2026, 11, 24});
    EXPECT_THAT(texts("40% of your tasks are done.", facts), IsEmpty());
    EXPECT_THAT(texts("60% of your tasks are open.", facts), IsEmpty());
    EXPECT_THAT(texts("You're 70% through your task list.", facts), ::testing::ElementsAre("70%"));
    const auto stamped = GroundingFacts::from_observations({observed("task_list", R"({"tasks":[
            {"id":1,"title":"A","status":"open","created":"2026-11-24T04:37:52Z"},
            {"id":2,"title":"B","status":"open","created":"2026-11-24T04:37:52Z"},
            {"id":3,"title":"C","status":"open","created":"2026-11-24T04:37:52Z"},
            {"id":4,"title":"D","status":"open","created":"2026-11-24T04:37:53Z"},
            {"id":5,"title":"E","status":"open","created":"2026-11-24T04:37:53Z"}],
            "count":5,"total":5})")},
                                                           "How far along am I?", std::tuple{2026, 11, 24});
    EXPECT_THAT(texts("You're 60% through your task list.", stamped), ::testing::ElementsAre("60%"));
}

TEST(GroundingCheck, DatesAreComparedAfterNormalising) {
    const auto facts = task_facts();
    for (const char* same : {"due 2026-11-28", "due 28 November", "due November 28th", "due Nov 28", "due 28/11",
                             "due 11/28/2026", "due Saturday 28 November", "due on the 28th of November"}) {
        EXPECT_THAT(texts(same, facts), IsEmpty()) << same;
    }
    EXPECT_THAT(texts("due 29 November", facts), ::testing::ElementsAre("29 November"));
    EXPECT_THAT(texts("due Friday 28 November", facts), ::testing::ElementsAre("Friday 28 November"));
    EXPECT_THAT(texts("due in March", facts), ::testing::ElementsAre("March"));
}

TEST(GroundingCheck, TimesInTwelveAndTwentyFourHourForms) {
    const auto facts = task_facts();
    EXPECT_THAT(texts("The tax return is due at 5:30 pm, that is 17:30.", facts), IsEmpty());
    EXPECT_THAT(texts("The tax return is due at 4 pm.", facts), ::testing::ElementsAre("4 pm"));
}

TEST(GroundingCheck, UrlsEmailsPathsCodesAndQuotes) {
    const auto facts = GroundingFacts::from_observations(
        {observed(
            "fs_read",
            R"({"path":"notes/plan.md","content":"See https://example.com/plan or mail ops@example.com. Ticket AB-12, build v2."})")},
        "Summarise notes/plan.md");
    EXPECT_THAT(
        texts("See https://example.com/plan, mail ops@example.com, read plan.md; ticket AB-12, build v2.", facts),
        IsEmpty());
    EXPECT_THAT(texts("See https://example.org/plan and mail dev@example.com, read notes/other.md, build v3.", facts),
                ::testing::UnorderedElementsAre("https://example.org/plan", "dev@example.com", "notes/other.md", "v3"));
    EXPECT_THAT(texts("It says \"build v2\" and \u201Cplan is done\u201D.", facts),
                ::testing::ElementsAre("\"plan is done\""));
}

TEST(GroundingCheck, ProperNamesAreLookedUpButSentenceStartsAndCommonWordsAreNot) {
    const auto facts = GroundingFacts::from_observations(
        {observed("memory_search", R"({"results":[{"id":1,"text":"Lunch with Maya Okafor at Harbor Café."}]})")},
        "Who did I meet?");
    EXPECT_THAT(texts("Yesterday you had lunch with Maya Okafor at Harbor Café. Enjoy!", facts), IsEmpty());
    EXPECT_THAT(texts("Don't forget: Lunch With Maya Okafor at Harbor Café went well.", facts), IsEmpty());
    EXPECT_THAT(texts("You had lunch with Maya Smith and Jonathan.", facts),
                ::testing::UnorderedElementsAre("Maya Smith", "Jonathan"));
}

TEST(GroundingCheck, ListItemsMustMatchAnObservedItem) {
    const auto facts = task_facts();
    EXPECT_THAT(texts("1. Water the plants\n2) Tax return filing (due 5 December)\n- Dentist call", facts), IsEmpty());
    EXPECT_THAT(texts("* Water the plants\n\u2022 Repaint the lighthouse", facts),
                ::testing::Contains("Repaint the lighthouse"));
}

TEST(GroundingCheck, StatusClaimsFollowTheStatusField) {
    const auto facts = task_facts();
    EXPECT_THAT(texts("The dentist call is done, but watering the plants is still open.", facts), IsEmpty());
    EXPECT_THAT(texts("The tax return is not done yet.", facts), IsEmpty());
    EXPECT_EQ(unsupported_claims("The tax return filing is done.", facts).at(0).kind, "status");
    EXPECT_EQ(unsupported_claims("All your tasks are done.", facts).at(0).kind, "status");
    EXPECT_EQ(unsupported_claims("You're all caught up!", facts).at(0).kind, "status");
    EXPECT_THAT(texts("All your high-priority tasks are open.", facts), IsEmpty());
}

TEST(GroundingCheck, PercentagesAndMoney) {
    const auto facts = GroundingFacts::from_observations(
        {observed("task_list", R"({"tasks":[{"title":"A","status":"open"},{"title":"B","status":"done"},
                                    {"title":"C","status":"open"},{"title":"D","status":"open"}],"budget_usd":1250})")},
        "status?");
    EXPECT_THAT(texts("75% of your tasks are open; the budget is $1,250.", facts), IsEmpty());
    EXPECT_THAT(texts("60% are open; the budget is $1,300 or \u20AC1,250.", facts),
                ::testing::UnorderedElementsAre("60%", "$1,300", "\u20AC1,250"));
}

TEST(GroundingCheck, WhatTheUserWroteCountsAsSupported) {
    const auto facts = task_facts("Is my meeting with Jonathan at 4 pm on 3 December?");
    EXPECT_THAT(texts("Your meeting with Jonathan at 4 pm on 3 December is not in your tasks.", facts), IsEmpty());
}

TEST(GroundingCheck, ReasonsSayWhatTheDataHas) {
    const auto claims = unsupported_claims("You have nine tasks.", task_facts());
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_EQ(claims[0].kind, "count");
    EXPECT_EQ(claims[0].reason, "the observations give 3");
}

// ---- hostile input: bounded work, no crash ----

struct Elapsed {
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
};

// A number written as a word or with a unit is a claim like any digit: an altered count inside a
// real title, an invented duration or quantity. Truthful forms of the same numbers pass.
TEST(GroundingCheck, NumbersAsWordsInsideTitlesAndWithUnits) {
    const auto facts = GroundingFacts::from_observations(
        {observed("task_list", R"({"tasks":[{"id":1,"title":"Order two more lockboxes","status":"open"},
            {"id":2,"title":"Walk 5 km with Sam","status":"open"}],"count":2})"),
         observed("fs_read", R"({"path":"notes/job.md","content":"# Job\nThe rotation job runs for 2 hours.\n"})")},
        "What is planned?", std::tuple{2026, 11, 24});
    EXPECT_THAT(texts("Order three more lockboxes.", facts), ::testing::ElementsAre("Order three"));
    EXPECT_THAT(texts("Order 3 more lockboxes.", facts), ::testing::ElementsAre("Order 3"));
    EXPECT_THAT(texts("Ordering the lockboxes takes about 3 hours.", facts), ::testing::ElementsAre("3 hours"));
    EXPECT_THAT(texts("The rotation job runs for three hours.", facts), ::testing::ElementsAre("three hours"));
    EXPECT_THAT(texts("You will walk 8 km with Sam.", facts), ::testing::ElementsAre("walk 8"));
    EXPECT_THAT(texts("Order two more lockboxes.", facts), IsEmpty());
    EXPECT_THAT(texts("Order 2 more lockboxes.", facts), IsEmpty());
    EXPECT_THAT(texts("The rotation job runs for two hours (notes/job.md, line 2).", facts), IsEmpty());
    EXPECT_THAT(texts("Walk five km with Sam.", facts), IsEmpty());
    EXPECT_THAT(texts("You have two tasks.", facts), IsEmpty());
}

std::vector<std::string> unsupported_texts(std::string_view answer, const GroundingFacts& facts) {
    std::vector<std::string> out;
    for (const auto& claim : unsupported_claims(answer, facts)) out.push_back(claim.text);
    return out;
}

TEST(GroundingCheck, FindsInventedNumbersDatesQuotesAndTitles) {
    const auto facts = GroundingFacts::from_observations(
        {observed("task_list",
                  R"({"tasks":[{"id":1,"title":"Water the plants","status":"open","due":"2026-11-30"}],"count":1})")},
        "goal");
    const auto offending = unsupported_texts(
        "You have 2 tasks:\n- Water the plants (open)\n- Buy milk — due 2026-12-01\nNote: \"urgent\"", facts);
    EXPECT_THAT(offending, ::testing::UnorderedElementsAre("Buy milk", "2026-12-01", "\"urgent\"", "2"));
}

TEST(GroundingCheck, AcceptsAnswersMadeOfObservedData) {
    const auto facts = GroundingFacts::from_observations(
        {observed("task_list",
                  R"({"tasks":[{"id":1,"title":"Water the plants","status":"open","due":"2026-11-30"}],"count":1})")},
        "goal");
    EXPECT_THAT(unsupported_texts("1. Water the plants (open), due 2026-11-30\nThat is 1 task.", facts), IsEmpty());
}

TEST(GroundingCheck, FactsHoldEveryStringAndNumberOfTheRawPayloads) {
    const auto facts = GroundingFacts::from_observations(
        {observed("task_list", R"({"tasks":[{"title":"Call \"Bob\"","id":7}],"count":1})")}, "");
    EXPECT_THAT(unsupported_texts("- Call \"Bob\" (id 7), 1 task", facts), IsEmpty());
}

TEST(GroundingCheckHostile, HundredThousandQuotesAndBackticks) {
    const auto facts = task_facts();
    Elapsed t;
    for (const std::string& answer : {std::string(100000, '"'), std::string(100000, '`'),
                                      [] {
                                          std::string s;
                                          for (int i = 0; i < 33000; ++i) s += "\u201C";
                                          return s;
                                      }(),
                                      [] {
                                          std::string s;
                                          for (int i = 0; i < 20000; ++i) s += "\"ab\" ";
                                          return s;
                                      }()}) {
        const auto claims = unsupported_claims(answer, facts);
        EXPECT_LE(claims.size(), 200u);
    }
    EXPECT_LT(t.seconds(), 30.0);  // a few hundred milliseconds expected, even under sanitizers
}

TEST(GroundingCheckHostile, AVeryLongAnswerFailsClosedAndQuickly) {
    const auto facts = task_facts();
    std::string answer;
    while (answer.size() < 2'000'000) answer += "Water the plants. ";
    Elapsed t;
    const auto claims = unsupported_claims(answer, facts);
    ASSERT_FALSE(claims.empty());
    EXPECT_EQ(claims.front().kind, "length");
    EXPECT_LT(t.seconds(), 30.0);
}

TEST(GroundingCheckHostile, PathologicalTokensAndBytes) {
    const auto facts = task_facts();
    std::string digits(50000, '9');
    std::string commas;
    for (int i = 0; i < 20000; ++i) commas += "1,";
    std::string bytes;
    for (int i = 0; i < 60000; ++i) bytes += static_cast<char>((i * 131 + 7) % 256);
    std::string markers;
    for (int i = 0; i < 20000; ++i) markers += "- 1. * \u2022 \n";
    std::string names;
    for (int i = 0; i < 20000; ++i) names += "Alpha ";
    std::string colons(50000, ':');
    Elapsed t;
    for (const auto* answer : {&digits, &commas, &bytes, &markers, &names, &colons}) {
        (void)unsupported_claims(*answer, facts);
    }
    EXPECT_LT(t.seconds(), 60.0);
}

TEST(GroundingCheckHostile, HugeRepetitiveObservationsKeepPhraseSearchBounded) {
    std::string text;
    for (int i = 0; i < 300000; ++i) text += "a ";
    json::object raw{{"content", text}};
    store::ScratchpadEntry entry;
    entry.action = store::Action{"fs_read", {}};
    entry.observation = store::Observation{};
    entry.observation->success = true;
    entry.observation->raw = raw;
    Elapsed t;
    const auto facts = GroundingFacts::from_observations({entry}, "");
    std::string answer;
    for (int i = 0; i < 2000; ++i) answer += "\"a a a a a a a a a a a a b\" ";
    (void)unsupported_claims(answer, facts);
    EXPECT_LT(t.seconds(), 60.0);
}

TEST(GroundingCheckHostile, DeepAndWideObservationsAreWalkedWithoutRecursion) {
    json::value deep = json::array{"leaf"};
    for (int i = 0; i < 2000; ++i) deep = json::array{std::move(deep)};
    json::array wide;
    for (int i = 0; i < 100000; ++i)
        wide.push_back(json::object{{"title", "item " + std::to_string(i)}, {"status", "open"}});
    store::ScratchpadEntry a, b;
    a.action = b.action = store::Action{"task_list", {}};
    a.observation = b.observation = store::Observation{};
    a.observation->raw = deep;
    b.observation->raw = json::object{{"tasks", std::move(wide)}};
    const auto facts = GroundingFacts::from_observations({a, b}, "");
    EXPECT_THAT(texts("All your tasks are open.", facts), IsEmpty());
}

}  // namespace
}  // namespace skillhost::grounding
