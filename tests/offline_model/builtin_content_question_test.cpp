// The builtin planner's questions about what sits inside the data, over skills it knows only by
// their manifests: a made-up wiki plugin (a read-only search, a read-only page reader and a writer)
// and a made-up journal. The planner must search, read the best match, and answer with the cited
// sentence or row; say what it searched when nothing answers; and never call the writer.
#include "offline_model/builtin_answer.hpp"
#include "offline_model/builtin_backend.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace skillhost::offline_model {
namespace {

namespace json = boost::json;
using llm::ChatRequest;

json::array wiki_tools() {
    return json::parse(R"([
      {"id":"wiki_edit","description":"Replaces the text of a wiki page.","read_only":false,
       "inputs":{"type":"object","properties":{"path":{"type":"string"},"body":{"type":"string"}},"required":["path","body"]}},
      {"id":"wiki_lookup","description":"Finds wiki pages containing the words of a query, with the matching lines.",
       "read_only":true,
       "inputs":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]},
       "outputs":{"type":"object","properties":{"pages":{"type":"array"}}}},
      {"id":"wiki_page","description":"Returns one wiki page.","read_only":true,
       "inputs":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},
       "outputs":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}},
      {"id":"journal_entries","description":"Finds journal entries by words.","read_only":true,
       "inputs":{"type":"object","properties":{"text":{"type":"string"},"limit":{"type":"integer"}},"required":["text"]},
       "outputs":{"type":"object","properties":{"entries":{"type":"array"}}}}
    ])")
        .as_array();
}

json::object plan(const std::string& goal, const json::array& steps) {
    ChatRequest request;
    request.role = "orchestrator";
    request.context = json::object{{"task", "plan"}, {"goal", goal}, {"tools", wiki_tools()}, {"steps", steps}};
    auto response = BuiltinBackend().chat(request, nullptr, {});
    EXPECT_TRUE(response.ok());
    return json::parse(response->content).as_object();
}

json::object step(const std::string& tool, const json::object& args, const std::string& data) {
    return json::object{{"tool", tool}, {"args", args}, {"ok", true}, {"data", json::parse(data)}};
}

std::string action_tool(const json::object& reply) {
    const auto* action = reply.if_contains("action");
    return action ? std::string(action->at("tool").as_string()) : std::string();
}

std::string note(const json::object& reply) {
    const auto* text = reply.if_contains("note");
    return text && text->is_string() ? std::string(text->as_string()) : std::string();
}

const char* kFerryPage = R"({"pages":[{"path":"travel/ferry.md","matches":[{"line":3,"text":"Tickets: 12 EUR."}]}]})";
const char* kFerryContent =
    R"({"path":"travel/ferry.md","content":"# Ferry\n\nThe ferry leaves at 07:45 from pier 3. Tickets: 12 EUR.\n"})";

TEST(BuiltinContentQuestion, SearchesEveryReadOnlySkillReadsTheBestPageAndCitesTheSentence) {
    const std::string goal = "When does the ferry leave?";
    json::array steps;
    auto reply = plan(goal, steps);
    ASSERT_EQ(action_tool(reply), "wiki_lookup") << json::serialize(reply);
    EXPECT_EQ(reply.at("action").at("args"), json::parse(R"({"query":"ferry leave"})"));
    steps.push_back(step("wiki_lookup", reply.at("action").at("args").as_object(), kFerryPage));

    reply = plan(goal, steps);
    ASSERT_EQ(action_tool(reply), "journal_entries") << json::serialize(reply);
    EXPECT_EQ(reply.at("action").at("args"), json::parse(R"({"text":"ferry leave"})"));
    steps.push_back(step("journal_entries", reply.at("action").at("args").as_object(), R"({"entries":[]})"));

    // The journal found nothing for both words: once more with the longest alone.
    reply = plan(goal, steps);
    ASSERT_EQ(action_tool(reply), "journal_entries") << json::serialize(reply);
    EXPECT_EQ(reply.at("action").at("args"), json::parse(R"({"text":"ferry"})"));
    steps.push_back(step("journal_entries", reply.at("action").at("args").as_object(),
                         R"({"entries":[{"id":4,"text":"Lunch with Sam by the ferry terminal."}]})"));

    reply = plan(goal, steps);
    ASSERT_EQ(action_tool(reply), "wiki_page") << json::serialize(reply);
    EXPECT_EQ(reply.at("action").at("args"), json::parse(R"({"path":"travel/ferry.md"})"));
    steps.push_back(step("wiki_page", reply.at("action").at("args").as_object(), kFerryContent));

    reply = plan(goal, steps);
    ASSERT_TRUE(reply.contains("respond")) << json::serialize(reply);
    const std::string answer = note(reply);
    EXPECT_NE(answer.find("The ferry leaves at 07:45 from pier 3. (travel/ferry.md, line 3)"), std::string::npos)
        << answer;
    EXPECT_EQ(answer.find("Lunch with Sam"), std::string::npos) << answer;
}

TEST(BuiltinContentQuestion, AnswersFromARecordWithItsIdWhenNoFileHoldsIt) {
    const std::string goal = "What format does the council want the budget in?";
    json::array steps;
    steps.push_back(step("wiki_lookup", json::object{{"query", "format council budget"}}, R"({"pages":[]})"));
    steps.push_back(step("journal_entries", json::object{{"text", "format council budget"}},
                         R"({"entries":[{"id":3,"text":"Lunch with Sam."},
                                        {"id":7,"text":"The council prefers budgets as a one-page PDF."}]})"));
    steps.push_back(step("wiki_lookup", json::object{{"query", "council"}}, R"({"pages":[]})"));
    // Still nothing: the next longest word, once more.
    auto again = plan(goal, steps);
    ASSERT_EQ(action_tool(again), "wiki_lookup") << json::serialize(again);
    EXPECT_EQ(again.at("action").at("args"), json::parse(R"({"query":"format"})"));
    steps.push_back(step("wiki_lookup", json::object{{"query", "format"}}, R"({"pages":[]})"));
    const auto reply = plan(goal, steps);
    ASSERT_TRUE(reply.contains("respond")) << json::serialize(reply);
    const std::string answer = note(reply);
    EXPECT_NE(answer.find("The council prefers budgets as a one-page PDF. (journal_entries, id 7)"), std::string::npos)
        << answer;
    EXPECT_EQ(answer.find("Lunch"), std::string::npos) << answer;
}

TEST(BuiltinContentQuestion, ARowOfATableAnswersHowMuchWithItsColumns) {
    const std::string goal = "How much is budgeted for insurance?";
    json::array steps;
    steps.push_back(step("wiki_lookup", json::object{{"query", "budgeted insurance"}},
                         R"({"pages":[{"path":"docs/budget.csv","matches":[{"line":3,"text":"insurance,900"}]}]})"));
    steps.push_back(step("journal_entries", json::object{{"text", "budgeted insurance"}},
                         R"({"entries":[{"id":2,"text":"Called the insurer about the boat insurance."}]})"));
    auto reply = plan(goal, steps);
    ASSERT_EQ(action_tool(reply), "wiki_page") << json::serialize(reply);
    steps.push_back(step("wiki_page", json::object{{"path", "docs/budget.csv"}},
                         R"({"path":"docs/budget.csv","content":"item,amount_eur\nlockboxes,480\ninsurance,900\n"})"));
    reply = plan(goal, steps);
    const std::string answer = note(reply);
    EXPECT_NE(answer.find("insurance,900 (docs/budget.csv, line 3; columns item,amount_eur)"), std::string::npos)
        << answer;
    EXPECT_EQ(answer.find("Called the insurer"), std::string::npos) << answer;
}

TEST(BuiltinContentQuestion, SaysWhatItSearchedWhenNothingAnswers) {
    const std::string goal = "When is the regatta?";
    json::array steps;
    steps.push_back(step("wiki_lookup", json::object{{"query", "regatta"}}, R"({"pages":[]})"));
    steps.push_back(step("journal_entries", json::object{{"text", "regatta"}}, R"({"entries":[]})"));
    const auto reply = plan(goal, steps);
    ASSERT_TRUE(reply.contains("respond")) << json::serialize(reply);
    const std::string answer = note(reply);
    EXPECT_NE(answer.find("None of the available skills has data that answers this"), std::string::npos) << answer;
    EXPECT_NE(answer.find("wiki_lookup, journal_entries"), std::string::npos) << answer;
    EXPECT_NE(answer.find("\"regatta\""), std::string::npos) << answer;
}

TEST(BuiltinContentQuestion, ASearchThatFailedIsReportedNotTakenForNothingFound) {
    json::array steps;
    steps.push_back(step("wiki_lookup", json::object{{"query", "regatta"}}, R"({"pages":[]})"));
    steps.push_back(json::object{{"tool", "journal_entries"},
                                 {"args", json::object{{"text", "regatta"}}},
                                 {"ok", false},
                                 {"error_code", "STORE_UNREADABLE"},
                                 {"error_message", "the journal database is unreadable"},
                                 {"suggestions", json::array{"Check the journal with `journal doctor`"}}});
    const auto reply = plan("When is the regatta?", steps);
    ASSERT_TRUE(reply.contains("respond")) << json::serialize(reply);
    const std::string answer = note(reply);
    EXPECT_NE(answer.find("journal_entries failed (STORE_UNREADABLE): the journal database is unreadable"),
              std::string::npos)
        << answer;
    EXPECT_NE(answer.find("Suggested: Check the journal"), std::string::npos) << answer;
}

TEST(BuiltinContentQuestion, TheFoundAnswerIsTheWholeAnswerWithoutTheSearchResults) {
    const json::object context{
        {"goal", "When does the ferry leave?"},
        {"style", "default"},
        {"instructions", std::string(kNoteLead) + std::string(kAnswerLead) +
                             "The ferry leaves at 07:45 from pier 3. (travel/ferry.md, line 3)"},
        {"observations", json::array{json::object{{"tool", "journal_entries"},
                                                  {"ok", true},
                                                  {"data", json::parse(R"({"entries":[{"id":4,"text":"Lunch"}]})")}}}}};
    const std::string answer = render_answer(context);
    EXPECT_EQ(answer.find("Lunch"), std::string::npos) << answer;
    EXPECT_EQ(answer.rfind("The ferry leaves at 07:45 from pier 3. (travel/ferry.md, line 3)", 0), 0u) << answer;
    EXPECT_EQ(answer.find(kAnswerLead), std::string::npos) << answer;
}

}  // namespace
}  // namespace skillhost::offline_model
