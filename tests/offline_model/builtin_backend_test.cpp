#include "offline_model/builtin_answer.hpp"
#include "offline_model/builtin_backend.hpp"
#include "language/goal_analysis.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>

namespace skillhost::offline_model {
namespace {

namespace json = boost::json;
using llm::ChatRequest;

// YAML → JSON the way the catalog hands manifests to the operator (numbers and booleans typed).
json::value to_json(const YAML::Node& node) {
    if (node.IsMap()) {
        json::object object;
        for (const auto& entry : node) object[entry.first.as<std::string>()] = to_json(entry.second);
        return object;
    }
    if (node.IsSequence()) {
        json::array array;
        for (const auto& item : node) array.push_back(to_json(item));
        return array;
    }
    if (node.IsNull()) return nullptr;
    const std::string text = node.as<std::string>();
    if (node.Tag() != "!") {
        if (text == "true" || text == "false") return text == "true";
        std::int64_t integer = 0;
        if (YAML::convert<std::int64_t>::decode(node, integer)) return integer;
    }
    return json::string(text);
}

// The planner's tool list built from the real built-in manifests, as the operator builds it.
json::array builtin_tools() {
    const std::filesystem::path manifests =
        std::filesystem::path(SKILLHOST_TEST_FIXTURES_SOURCE_DIR) / ".." / ".." / "manifests";
    json::array tools;
    for (const char* name : {"tasks.yaml", "fs.yaml", "memory.yaml"}) {
        const YAML::Node manifest = YAML::LoadFile((manifests / name).string());
        for (const auto& skill : manifest["skills"]) {
            json::object tool;
            tool["id"] = skill["id"].as<std::string>();
            tool["description"] = skill["description"].as<std::string>();
            tool["inputs"] = skill["inputs"] ? to_json(skill["inputs"]) : json::object{};
            tool["examples"] = skill["examples"] ? to_json(skill["examples"]) : json::array{};
            tool["read_only"] = skill["annotations"] && skill["annotations"]["read_only"] &&
                                skill["annotations"]["read_only"].as<bool>();
            tools.push_back(std::move(tool));
        }
    }
    return tools;
}

json::object plan(const std::string& goal, json::array steps = {}) {
    ChatRequest request;
    request.role = "orchestrator";
    request.messages = {{"system", "plan"}, {"user", goal}};
    request.json_schema = json::object{{"type", "object"}};
    request.context =
        json::object{{"task", "plan"}, {"goal", goal}, {"tools", builtin_tools()}, {"steps", std::move(steps)}};
    BuiltinBackend backend;
    auto response = backend.chat(request, nullptr, {});
    EXPECT_TRUE(response.ok());
    EXPECT_EQ(response->backend, "builtin");
    return json::parse(response->content).as_object();
}

TEST(BuiltinPlanner, WhatTasksDoIHaveListsTasks) {
    const auto step = plan("What tasks do I have?");
    ASSERT_TRUE(step.contains("action")) << json::serialize(step);
    EXPECT_EQ(step.at("action").at("tool").as_string(), "task_list");
    EXPECT_TRUE(step.at("action").at("args").as_object().empty());
    EXPECT_FALSE(step.at("thought").as_string().empty());
}

TEST(BuiltinPlanner, ShowMeReadmeReadsTheFile) {
    const auto step = plan("Show me README.md");
    ASSERT_TRUE(step.contains("action")) << json::serialize(step);
    EXPECT_EQ(step.at("action").at("tool").as_string(), "fs_read");
    EXPECT_EQ(step.at("action").at("args"), json::parse(R"({"path":"README.md"})"));
}

TEST(BuiltinPlanner, WhatDidIDoYesterdayRecallsThatDay) {
    const auto step = plan("What did I do yesterday?");
    ASSERT_TRUE(step.contains("action")) << json::serialize(step);
    EXPECT_EQ(step.at("action").at("tool").as_string(), "memory_recent");
    EXPECT_EQ(step.at("action").at("args"), json::parse(R"({"when":"yesterday"})"));
}

TEST(BuiltinPlanner, CreateATaskTakesTheTitleAfterTo) {
    const auto step = plan("Create a task to call the dentist");
    ASSERT_TRUE(step.contains("action")) << json::serialize(step);
    EXPECT_EQ(step.at("action").at("tool").as_string(), "task_create");
    EXPECT_EQ(step.at("action").at("args"), json::parse(R"({"title":"call the dentist"})"));
}

TEST(BuiltinPlanner, ExtractsPriorityQuotesAndTimePhrases) {
    auto urgent = plan("Add a high priority task to renew the passport");
    EXPECT_EQ(urgent.at("action").at("tool").as_string(), "task_create");
    EXPECT_EQ(urgent.at("action").at("args"), json::parse(R"({"title":"renew the passport","priority":"high"})"));

    auto quoted = plan("Create a task \"Book flights\"");
    EXPECT_EQ(quoted.at("action").at("args").at("title").as_string(), "Book flights");

    auto meeting = plan("Search my memory for the budget meeting last week");
    EXPECT_EQ(meeting.at("action").at("tool").as_string(), "memory_search");
    EXPECT_EQ(meeting.at("action").at("args").at("when").as_string(), "last week");
    EXPECT_NE(meeting.at("action").at("args").at("query").as_string().find("budget"), std::string::npos);

    auto find = plan("Find my task about the dentist");
    EXPECT_EQ(find.at("action").at("tool").as_string(), "task_find");
    EXPECT_EQ(find.at("action").at("args").at("query").as_string(), "dentist");

    auto files = plan("List the files in the docs folder");
    EXPECT_EQ(files.at("action").at("tool").as_string(), "fs_list");
    EXPECT_EQ(files.at("action").at("args").at("path").as_string(), "docs");
}

TEST(BuiltinPlanner, RespondsOnceAStepSucceeded) {
    json::array steps{json::object{
        {"tool", "task_list"}, {"args", json::object{}}, {"ok", true}, {"observation_summary", "3 tasks"}}};
    const auto step = plan("What tasks do I have?", steps);
    EXPECT_FALSE(step.contains("action"));
    EXPECT_EQ(step.at("respond").as_bool(), true);
}

TEST(BuiltinPlanner, AMissingFileIsLookedForByName) {
    json::array steps{json::object{{"tool", "fs_read"},
                                   {"args", json::object{{"path", "notes/todo.md"}}},
                                   {"ok", false},
                                   {"error_code", "FILE_NOT_FOUND"}}};
    const auto step = plan("Show me notes/todo.md", steps);
    ASSERT_TRUE(step.contains("action")) << json::serialize(step);
    EXPECT_EQ(step.at("action").at("tool").as_string(), "fs_search");
    EXPECT_EQ(step.at("action").at("args"), json::parse(R"({"name":"todo.md"})"));
}

TEST(BuiltinPlanner, NeverRepeatsAFailedActionAndGivesUpCleanly) {
    json::array steps{
        json::object{{"tool", "task_list"}, {"args", json::object{}}, {"ok", false}, {"error_code", "TIMEOUT"}}};
    const auto step = plan("What tasks do I have?", steps);
    if (step.contains("action")) {
        EXPECT_FALSE(step.at("action").at("tool").as_string() == "task_list" &&
                     step.at("action").at("args").as_object().empty());
    } else {
        EXPECT_TRUE(step.at("respond").as_bool());
    }
}

TEST(BuiltinPlanner, AGreetingNeedsNoTool) {
    const auto step = plan("Hello there");
    EXPECT_FALSE(step.contains("action"));
    EXPECT_TRUE(step.at("respond").as_bool());
}

TEST(BuiltinPlanner, IsDeterministic) {
    for (const char* goal : {"What tasks do I have?", "Show me README.md", "What did I do yesterday?"}) {
        EXPECT_EQ(plan(goal), plan(goal)) << goal;
    }
}

std::string classify(const std::string& message) {
    ChatRequest request;
    request.role = "classifier";
    request.messages = {{"user", message}};
    request.context = json::object{{"task", "classify"}, {"message", message}};
    auto response = BuiltinBackend().chat(request, nullptr, {});
    EXPECT_TRUE(response.ok());
    const auto parsed = json::parse(response->content).as_object();
    EXPECT_GT(parsed.at("confidence").to_number<double>(), 0.0);
    return std::string(parsed.at("intent").as_string());
}

TEST(BuiltinClassifier, SortsMessagesIntoTheLightweightIntents) {
    EXPECT_EQ(classify("What's your cat's name?"), "factual");
    EXPECT_EQ(classify("Who did I meet at the conference?"), "factual");
    EXPECT_EQ(classify("What did I do yesterday?"), "temporal");
    EXPECT_EQ(classify("How was your day?"), "temporal");
    EXPECT_EQ(classify("What tasks do I have?"), "task");
    EXPECT_EQ(classify("What am I working on?"), "task");
    EXPECT_EQ(classify("Hi there"), "casual");
    EXPECT_EQ(classify("thanks!"), "casual");
    EXPECT_EQ(classify("Create a task and tell me what I'm working on"), "complex");
    EXPECT_EQ(classify("Create a task to call the dentist"), "complex");
}

TEST(BuiltinClassifier, WorksWithoutAContextFromTheLastUserMessage) {
    ChatRequest request;
    request.role = "classifier";
    request.messages = {{"system", "classify"}, {"user", "Show me my tasks"}};
    auto response = BuiltinBackend().chat(request, nullptr, {});
    ASSERT_TRUE(response.ok());
    EXPECT_EQ(json::parse(response->content).at("intent").as_string(), "task");
}

std::string answer(json::array observations, const std::string& style = "default") {
    ChatRequest request;
    request.role = "persona";
    request.messages = {{"user", "answer"}};
    request.context =
        json::object{{"task", "answer"}, {"goal", "g"}, {"style", style}, {"observations", std::move(observations)}};
    auto response = BuiltinBackend().chat(request, nullptr, {});
    EXPECT_TRUE(response.ok());
    EXPECT_EQ(response->backend, "builtin");
    return response->content;
}

TEST(BuiltinAnswer, RendersAListWithItsKeyFieldsAndTheMarker) {
    const auto data = json::parse(R"({"tasks":[
        {"id":1,"title":"Call the dentist","status":"open","priority":"high","due":"2026-11-23"},
        {"id":2,"title":"Write the report","status":"in_progress","priority":"medium","tags":["work"]}],"count":2})");
    const std::string text = answer(json::array{json::object{{"tool", "task_list"}, {"ok", true}, {"data", data}}});
    EXPECT_NE(text.find("2 tasks:"), std::string::npos) << text;
    EXPECT_NE(text.find("- Call the dentist (status: open, priority: high, due: 2026-11-23, id: 1)"), std::string::npos)
        << text;
    EXPECT_NE(text.find("- Write the report (status: in_progress, priority: medium, tags: work, id: 2)"),
              std::string::npos)
        << text;
    EXPECT_TRUE(text.ends_with(std::string(kBuiltinMarker))) << text;
}

TEST(BuiltinAnswer, SummaryStyleIsOneLine) {
    const auto data = json::parse(R"({"tasks":[{"title":"A"},{"title":"B"}]})");
    const std::string text =
        answer(json::array{json::object{{"tool", "task_list"}, {"ok", true}, {"data", data}}}, "summary");
    EXPECT_EQ(text, "2 tasks: A; B.\n\n" + std::string(kBuiltinMarker));
}

TEST(BuiltinAnswer, ShowsFileContentsVerbatim) {
    const auto data = json::parse(R"({"path":"README.md","content":"# Demo\nHello.\n","truncated":false})");
    const std::string text = answer(json::array{json::object{{"tool", "fs_read"}, {"ok", true}, {"data", data}}});
    EXPECT_TRUE(text.starts_with("Contents of README.md:\n# Demo\nHello.\n")) << text;
}

TEST(BuiltinAnswer, ReportsFailuresWithCodeMessageAndSuggestions) {
    const auto error = json::parse(
        R"({"code":"FILE_NOT_FOUND","message":"no such file: notes.md","suggestions":["fs_list the directory"]})");
    const std::string text = answer(json::array{json::object{{"tool", "fs_read"}, {"ok", false}, {"error", error}}});
    EXPECT_NE(text.find("I could not get the data"), std::string::npos);
    EXPECT_NE(text.find("fs_read failed: FILE_NOT_FOUND — no such file: notes.md (suggestions: fs_list the directory)"),
              std::string::npos)
        << text;
}

TEST(BuiltinAnswer, EmptyListsAndNoObservationsSaySo) {
    EXPECT_TRUE(answer(json::array{json::object{
                           {"tool", "memory_recent"}, {"ok", true}, {"data", json::parse(R"({"memories":[]})")}}})
                    .starts_with("No memories found."));
    EXPECT_TRUE(answer(json::array{}).starts_with("I found no data for this request."));
}

TEST(BuiltinBackend, ChatWithoutContextIsHonestAboutHavingNoModel) {
    ChatRequest request;
    request.role = "persona";
    request.messages = {{"user", "Hello!"}};
    auto response = BuiltinBackend().chat(request, nullptr, {});
    ASSERT_TRUE(response.ok());
    EXPECT_TRUE(response->content.starts_with("Hello!")) << response->content;
    EXPECT_NE(response->content.find(kBuiltinMarker), std::string::npos);
    EXPECT_TRUE(response->tokens_estimated);
}

TEST(BuiltinBackend, AnUnknownTaskIsAnError) {
    ChatRequest request;
    request.context = json::object{{"task", "poetry"}};
    auto response = BuiltinBackend().chat(request, nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_BAD_REQUEST");
}

}  // namespace
}  // namespace skillhost::offline_model

namespace skillhost::offline_model {
namespace {

TEST(BuiltinPlanner, MoreEverydayQuestions) {
    const auto meetings = plan("What meetings happened yesterday?");
    EXPECT_EQ(meetings.at("action").at("tool").as_string(), "memory_search") << json::serialize(meetings);
    EXPECT_EQ(meetings.at("action").at("args"), json::parse(R"({"query":"meeting","when":"yesterday"})"));

    const auto budget = plan("Find files mentioning budget");
    EXPECT_EQ(budget.at("action").at("tool").as_string(), "fs_search") << json::serialize(budget);
    EXPECT_EQ(budget.at("action").at("args"), json::parse(R"({"text":"budget"})"));

    const auto markdown = plan("List all markdown files");
    EXPECT_EQ(markdown.at("action").at("tool").as_string(), "fs_list") << json::serialize(markdown);
    EXPECT_EQ(markdown.at("action").at("args"), json::parse(R"({"pattern":"*.md","recursive":true})"));

    const auto mine = plan("list my tasks");
    EXPECT_EQ(mine.at("action").at("tool").as_string(), "task_list");

    const auto remember = plan("Remember that the wifi password is on the fridge");
    EXPECT_EQ(remember.at("action").at("tool").as_string(), "memory_capture") << json::serialize(remember);
    EXPECT_EQ(remember.at("action").at("args").at("text").as_string(), "the wifi password is on the fridge");
}

}  // namespace
}  // namespace skillhost::offline_model

namespace skillhost::offline_model {
namespace {

json::object step(const std::string& tool, const std::string& args, bool ok, const std::string& data_or_error = "{}") {
    json::object s{{"tool", tool}, {"args", json::parse(args)}, {"ok", ok}};
    if (ok) {
        s["data"] = json::parse(data_or_error);
    } else {
        s["error_code"] = data_or_error;
        s["error_message"] = "the database is unreadable";
        s["suggestions"] = json::array{"Check the tasks database with `skillhost doctor`"};
    }
    return s;
}

const char* kInsuranceFound =
    R"({"tasks":[{"id":1,"title":"Renew the boat insurance","status":"open","tags":["admin","finance"]}],"count":1})";
const char* kLockboxesFound =
    R"({"tasks":[{"id":3,"title":"Review Tomás's lockbox rotation fix","tags":[]},
                 {"id":2,"title":"Order two more lockboxes","tags":["hardware"]}],"count":2})";

TEST(BuiltinChains, FindsTheItemThenChangesItByTheIdTheFindReturned) {
    const auto find = plan("Mark the boat insurance task as done");
    ASSERT_TRUE(find.contains("action")) << json::serialize(find);
    EXPECT_EQ(find.at("action").at("tool").as_string(), "task_find");
    EXPECT_EQ(find.at("action").at("args").at("query").as_string(), "boat insurance");

    json::array steps{step("task_find", R"({"query":"boat insurance"})", true, kInsuranceFound)};
    const auto update = plan("Mark the boat insurance task as done", steps);
    ASSERT_TRUE(update.contains("action")) << json::serialize(update);
    EXPECT_EQ(update.at("action").at("tool").as_string(), "task_update");
    EXPECT_EQ(update.at("action").at("args"), json::parse(R"({"id":1,"status":"done"})"));

    steps.push_back(
        step("task_update", R"({"id":1,"status":"done"})", true, R"({"task":{"id":1},"changed":["status"]})"));
    const auto done = plan("Mark the boat insurance task as done", steps);
    EXPECT_TRUE(done.at("respond").as_bool());
}

TEST(BuiltinChains, ListsFirstWhenAskedThenRenamesAndKeepsTagsWhenTagging) {
    const std::string goal = "Find my unfinished tasks and rename the one about the budget to Budget review v2";
    EXPECT_EQ(plan(goal).at("action").at("tool").as_string(), "task_list");
    json::array steps{step("task_list", "{}", true, R"({"tasks":[]})")};
    const auto find = plan(goal, steps);
    EXPECT_EQ(find.at("action").at("args"), json::parse(R"({"query":"budget","include_completed":false})"));
    steps.push_back(step("task_find", R"({"query":"budget"})", true,
                         R"({"tasks":[{"id":4,"title":"Prepare the budget review for the council"}]})"));
    EXPECT_EQ(plan(goal, steps).at("action").at("args"), json::parse(R"({"id":4,"title":"Budget review v2"})"));

    json::array tag_steps{step("task_find", R"({"query":"boat insurance"})", true, kInsuranceFound)};
    const auto tag = plan("Tag the boat insurance task as paperwork", tag_steps);
    EXPECT_EQ(tag.at("action").at("args"), json::parse(R"({"id":1,"tags":["admin","finance","paperwork"]})"));
}

TEST(BuiltinChains, AnAmbiguousReferenceNamesTheCandidatesAndChangesNothing) {
    json::array steps{step("task_find", R"({"query":"lockbox"})", true, kLockboxesFound)};
    const auto reply = plan("Mark the lockbox task as done", steps);
    ASSERT_FALSE(reply.contains("action")) << json::serialize(reply);
    const std::string note(reply.at("note").as_string());
    EXPECT_NE(note.find("Order two more lockboxes (id 2)"), std::string::npos) << note;
    EXPECT_NE(note.find("Review Tomás's lockbox rotation fix (id 3)"), std::string::npos) << note;
    EXPECT_NE(note.find("Which one"), std::string::npos) << note;
}

TEST(BuiltinChains, AFailedFindFallsBackToTheListAndThenReportsWithTheSuggestion) {
    json::array steps{step("task_find", R"({"query":"boat insurance"})", false, "STORE_ERROR")};
    const auto list = plan("Mark the boat insurance task as done", steps);
    EXPECT_EQ(list.at("action").at("tool").as_string(), "task_list");
    steps.push_back(step("task_list", "{}", false, "STORE_ERROR"));
    const auto reply = plan("Mark the boat insurance task as done", steps);
    const std::string note(reply.at("note").as_string());
    EXPECT_NE(note.find("nothing was changed"), std::string::npos) << note;
    EXPECT_NE(note.find("Suggested: Check the tasks database"), std::string::npos) << note;
}

TEST(BuiltinEntity, SearchesMemoryTasksAndFilesForTheName) {
    const std::string goal = "What do you know about Priya?";
    json::array steps;
    std::vector<std::string> tools;
    for (int i = 0; i < 4; ++i) {
        const auto reply = plan(goal, steps);
        if (!reply.contains("action")) {
            EXPECT_NE(std::string(reply.at("note").as_string()).find("Priya"), std::string::npos);
            break;
        }
        const auto& action = reply.at("action").as_object();
        EXPECT_NE(json::serialize(action.at("args")).find("Priya"), std::string::npos);
        tools.emplace_back(action.at("tool").as_string());
        steps.push_back(step(tools.back(), json::serialize(action.at("args")), true, R"({"results":[]})"));
    }
    EXPECT_EQ(tools, (std::vector<std::string>{"memory_search", "task_find", "fs_search"}));
}

TEST(BuiltinCapability, SaysWhatNoToolCanDoAndNamesTheClosest) {
    const auto reply = plan("Delete the file notes/lockbox.md");
    ASSERT_FALSE(reply.contains("action")) << json::serialize(reply);
    const std::string note(reply.at("note").as_string());
    EXPECT_NE(note.find("none of the available skills can delete files"), std::string::npos) << note;
    EXPECT_NE(note.find("fs_write"), std::string::npos) << note;

    const auto email = plan("Please send an email to Priya");
    EXPECT_NE(std::string(email.at("note").as_string()).find("can send an email"), std::string::npos)
        << json::serialize(email);
}

TEST(BuiltinCatalog, PlansAThirdPartySkillFromItsManifest) {
    json::array tools = builtin_tools();
    tools.push_back(json::parse(R"({"id":"weather_forecast","description":"The weather forecast for a city.",
        "inputs":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]},
        "examples":[{"description":"Weather in Paris","args":{"city":"Paris"}}],"read_only":true})"));
    tools.push_back(json::parse(R"({"id":"email_send","description":"Sends an e-mail.",
        "inputs":{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}},"required":["to","body"]},
        "examples":[{"description":"Send an e-mail to sam@example.com","args":{"to":"sam@example.com","body":"Hi"}}],
        "read_only":false})"));
    const auto run = [&](const std::string& goal) {
        ChatRequest request;
        request.role = "orchestrator";
        request.context = json::object{{"task", "plan"}, {"goal", goal}, {"tools", tools}, {"steps", json::array{}}};
        auto response = BuiltinBackend().chat(request, nullptr, {});
        EXPECT_TRUE(response.ok());
        return json::parse(response->content).as_object();
    };
    const auto weather = run("What's the weather in Lisbon?");
    ASSERT_TRUE(weather.contains("action")) << json::serialize(weather);
    EXPECT_EQ(weather.at("action").at("tool").as_string(), "weather_forecast");
    EXPECT_EQ(weather.at("action").at("args"), json::parse(R"({"city":"Lisbon"})"));
    // With a tool that sends mail installed, the goal is no longer impossible.
    const auto email = run("Send an email to Priya");
    EXPECT_FALSE(email.contains("note") &&
                 std::string(email.at("note").as_string()).find("none of") != std::string::npos)
        << json::serialize(email);
}

TEST(BuiltinRetry, AFailedLookupReportsTheErrorAndItsSuggestion) {
    json::array steps{step("task_list", "{}", false, "STORE_ERROR")};
    const auto reply = plan("What tasks do I have?", steps);
    ASSERT_FALSE(reply.contains("action")) << json::serialize(reply);
    const std::string note(reply.at("note").as_string());
    EXPECT_NE(note.find("task_list failed (STORE_ERROR)"), std::string::npos) << note;
    EXPECT_NE(note.find("Suggested: Check the tasks database"), std::string::npos) << note;
}

TEST(BuiltinCritic, RejectsEmptyAnswersAndHiddenFailures) {
    const auto review = [](const std::string& text) {
        ChatRequest request;
        request.role = "critic";
        request.messages = {{"system", "review"}, {"user", text}};
        request.context = json::object{{"task", "critic"}};
        auto response = BuiltinBackend().chat(request, nullptr, {});
        EXPECT_TRUE(response.ok());
        return json::parse(response->content).as_object();
    };
    EXPECT_FALSE(review("Goal: x\nObservations:\ntask_list:\n- a\nAnswer:\n  ").at("approved").as_bool());
    EXPECT_FALSE(review("Goal: x\nObservations:\ntask_list failed: STORE_ERROR — bad\nAnswer:\nAll fine.")
                     .at("approved")
                     .as_bool());
    EXPECT_TRUE(review("Goal: x\nObservations:\ntask_list failed: STORE_ERROR — bad\nAnswer:\ntask_list failed.")
                    .at("approved")
                    .as_bool());
    EXPECT_TRUE(review("Goal: x\nObservations:\ntask_list:\n- Buy milk\nAnswer:\n- Buy milk").at("approved").as_bool());
}

// Hostile input: every scan is linear, so 100,000 characters of the worst shapes for a
// backtracking regex neither crash nor take long.
TEST(BuiltinModel, HugeGoalsOfRepeatedPatternsAreHandled) {
    const std::size_t n = 100000;
    std::vector<std::string> goals = {"\"" + std::string(n, 'a'), "'" + std::string(n, 'a'), std::string(n, 'a'),
                                      std::string(n, '"'),        std::string(n, '*'),       std::string(n, ' ')};
    std::string repeated;
    for (const char* piece : {"last ", "a/", "task to ", "high priority ", "rename x to ", "\xE2\x80\x9C"}) {
        repeated.clear();
        while (repeated.size() < n) repeated += piece;
        goals.push_back(repeated);
    }
    std::string distinct = "Mark";
    for (int i = 0; distinct.size() < n; ++i) distinct += " w" + std::to_string(i);
    goals.push_back(distinct + " as done");
    for (const auto& goal : goals) {
        const auto analysis = language::analyse_goal(goal);
        EXPECT_LE(analysis.target.size(), 200u);
        EXPECT_EQ(analysis.lower.size(), goal.size());
        const auto reply = plan(goal);
        EXPECT_TRUE(reply.contains("thought"));
        EXPECT_FALSE(classify(goal).empty());
        EXPECT_FALSE(casual_reply(goal).empty());
    }
}

}  // namespace
}  // namespace skillhost::offline_model
