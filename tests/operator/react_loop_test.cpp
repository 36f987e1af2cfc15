// The ReAct loop with a scripted planner over the real plugins and the real CallPipeline.
#include "operator/operator_host.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::testing {
namespace {

namespace json = boost::json;
using store::RunStatus;
using ::testing::HasSubstr;
using ::testing::Not;

std::string all_text(const llm::ChatRequest& request) {
    std::string out;
    for (const auto& m : request.messages) out += m.content + "\n";
    return out;
}

TEST(ReactLoop, ChainsThreeToolsAndAnswersFromTheirObservations) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", act("task_find", R"({"query":"dentist"})")},
                       {"orchestrator", act("task_update", R"({"id":2,"status":"done"})")},
                       {"orchestrator", respond("default")}});
    host.call("task_create", R"({"title":"Buy milk"})");
    host.call("task_create", R"({"title":"Call the dentist"})");

    auto run = host.op().run("Find the dentist task and mark it done", host.user());
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->status, RunStatus::completed) << (run->error ? run->error->message : "");
    ASSERT_EQ(run->steps.size(), 4u);
    EXPECT_EQ(run->steps[0].action->tool, "task_list");
    EXPECT_EQ(run->steps[1].action->tool, "task_find");
    EXPECT_EQ(run->steps[2].action->tool, "task_update");
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(run->steps[i].observation->success) << i;
    EXPECT_THAT(run->steps[1].observation->content, HasSubstr("Call the dentist"));
    EXPECT_FALSE(run->answer.empty());
    EXPECT_THAT(run->answer, HasSubstr("dentist"));

    auto done = host.call("task_list", R"({"status":"done"})");
    EXPECT_THAT(json::serialize(done.output), HasSubstr("Call the dentist"));
    // The planner saw the earlier observations when choosing the later actions.
    const auto plans = host.requests_for("orchestrator");
    ASSERT_EQ(plans.size(), 4u);
    EXPECT_THAT(all_text(plans[2]), HasSubstr("Call the dentist"));
    EXPECT_THAT(all_text(plans[0]), HasSubstr("Use only data from Observations. Never invent"));
    EXPECT_THAT(plans[0].messages[0].content, HasSubstr("task_update"));
    EXPECT_THAT(plans[0].messages[0].content, Not(HasSubstr("conversational_response")));
}

TEST(ReactLoop, AFailedCallsSuggestionLeadsToADifferentTool) {
    OperatorHost host({{"orchestrator", act("fs_read", R"({"path":"docs/plan.txt"})")},
                       {"orchestrator", act("fs_search", R"({"name":"plan*"})")},
                       {"orchestrator", respond("default")}});
    write_file(host.workspace() / "notes" / "plan-2027.txt", "ship it\n");

    auto run = host.op().run("Read my plan file", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed);
    ASSERT_GE(run->steps.size(), 2u);
    const auto& failed = *run->steps[0].observation;
    EXPECT_FALSE(failed.success);
    ASSERT_TRUE(failed.error);
    EXPECT_EQ(failed.error->code, "FILE_NOT_FOUND");
    EXPECT_THAT(json::serialize(json::value_from(failed.error->suggestions)), HasSubstr("fs_search"));
    EXPECT_TRUE(run->steps[1].observation->success);
    EXPECT_THAT(run->steps[1].observation->content, HasSubstr("plan-2027.txt"));
    // The second planner prompt carried the error and its suggestions.
    const auto plans = host.requests_for("orchestrator");
    ASSERT_GE(plans.size(), 2u);
    EXPECT_THAT(all_text(plans[1]), HasSubstr("FAILED FILE_NOT_FOUND"));
    EXPECT_THAT(all_text(plans[1]), HasSubstr("suggestion: Use fs_search"));
}

TEST(ReactLoop, LoopGuardRefusesAnActionThatFailedTwiceThenTheRunAsksForGuidance) {
    OperatorHost host({{"orchestrator", act("fs_read", R"({"path":"missing.txt"})")},
                       {"orchestrator", act("fs_read", R"({"path":"missing.txt"})")},
                       {"orchestrator", act("fs_read", R"({"path":"./missing.txt"})")}});
    EventLog events;
    auto run = host.op().run("Read missing.txt", host.user(), {}, &events);
    ASSERT_TRUE(run.ok());
    ASSERT_EQ(run->steps.size(), 3u);
    EXPECT_EQ(run->steps[0].observation->error->code, "FILE_NOT_FOUND");
    EXPECT_EQ(run->steps[1].observation->error->code, "FILE_NOT_FOUND");
    EXPECT_EQ(run->steps[2].observation->error->code, "LOOP_GUARD");
    EXPECT_THAT(run->steps[2].observation->error->message, HasSubstr("already failed 2 times"));
    EXPECT_TRUE(events.has(op::RunEventType::warning, "not executed"));
    EXPECT_EQ(run->status, RunStatus::needs_guidance);
    ASSERT_TRUE(run->error);
    EXPECT_EQ(run->error->details.at("type"), "stuck");
    EXPECT_EQ(run->error->details.at("tried").as_array().size(), 3u);
    EXPECT_FALSE(run->error->suggestions.empty());
}

TEST(ReactLoop, AutoFixesALeadingSlashOnAWorkspacePath) {
    OperatorHost host(
        {{"orchestrator", act("fs_read", R"({"path":"/README.md"})")}, {"orchestrator", respond("default")}});
    write_file(host.workspace() / "README.md", "# Hello\nThe project readme.\n");
    auto run = host.op().run("Summarise the readme", host.user());
    ASSERT_TRUE(run.ok());
    ASSERT_GE(run->steps.size(), 1u);
    EXPECT_TRUE(run->steps[0].observation->success);
    EXPECT_EQ(run->steps[0].action->args.at("path"), "README.md");
    EXPECT_THAT(run->steps[0].observation->content, HasSubstr("auto-fixed path: /README.md → README.md"));
}

TEST(ReactLoop, AutoFixesAUniqueCloseFileName) {
    OperatorHost host(
        {{"orchestrator", act("fs_read", R"({"path":"notes/todo.md"})")}, {"orchestrator", respond("default")}});
    write_file(host.workspace() / "notes" / "todos.md", "- water plants\n");
    auto run = host.op().run("Summarise my todo notes", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_TRUE(run->steps[0].observation->success);
    EXPECT_THAT(run->steps[0].observation->content, HasSubstr("auto-fixed path: notes/todo.md → notes/todos.md"));
}

TEST(ReactLoop, VerbatimShortCircuitSkipsTheAnswerModel) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")}, {"orchestrator", respond("default")}});
    host.call("task_create", R"({"title":"Water the plants","priority":"high"})");
    auto run = host.op().run("List my tasks", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed);
    EXPECT_TRUE(run->verbatim);
    EXPECT_THAT(run->answer, HasSubstr("Water the plants"));
    EXPECT_THAT(run->answer, HasSubstr("high"));
    EXPECT_EQ(run->tokens.count("persona"), 0u);
    EXPECT_EQ(run->to_json().at("verbatim"), true);
}

TEST(ReactLoop, StrictAnswerWithInventedDataFallsBackToTheObservations) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", respond("strict")},
                       {"persona", "You have 3 tasks:\n- Buy milk (due 2026-12-01)\n- Water the plants"}});
    host.call("task_create", R"({"title":"Water the plants"})");
    auto run = host.op().run("Summarize my workload", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed);
    EXPECT_TRUE(run->grounding.checked);
    EXPECT_FALSE(run->grounding.passed);
    EXPECT_THAT(run->grounding.offending, ::testing::Contains("Buy milk"));
    EXPECT_THAT(run->grounding.offending, ::testing::Contains("2026-12-01"));
    EXPECT_THAT(run->grounding.offending, ::testing::Contains("3"));
    EXPECT_THAT(run->answer, Not(HasSubstr("Buy milk")));
    EXPECT_THAT(run->answer, HasSubstr("Water the plants"));
    EXPECT_EQ(run->to_json().at("grounding").at("result"), "failed");
}

TEST(ReactLoop, StrictAnswerThatRepeatsTheDataPassesGrounding) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", respond("strict")},
                       {"persona", "You have 1 task:\n- Water the plants (open, medium)"}});
    host.call("task_create", R"({"title":"Water the plants"})");
    auto run = host.op().run("Summarize my workload", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_TRUE(run->grounding.checked);
    EXPECT_TRUE(run->grounding.passed) << run->to_json().at("grounding");
    EXPECT_THAT(run->answer, HasSubstr("You have 1 task"));
}

TEST(ReactLoop, RepairsPlannerJsonWrappedInProse) {
    OperatorHost host({{"orchestrator", "Sure! Here is my plan:\n```json\n" + act("task_list", "{}") + "\n```"},
                       {"orchestrator", respond("verbatim")}});
    EventLog events;
    auto run = host.op().run("List my tasks", host.user(), {}, &events);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed);
    EXPECT_EQ(run->steps[0].action->tool, "task_list");
    EXPECT_TRUE(events.has(op::RunEventType::warning, "cut out of surrounding text"));
}

TEST(ReactLoop, RetriesOnceWithTheSchemaAfterInvalidPlannerOutput) {
    OperatorHost host({{"orchestrator", "I think we should list the tasks."},
                       {"orchestrator", act("task_list", "{}")},
                       {"orchestrator", respond("verbatim")}});
    auto run = host.op().run("List my tasks", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed);
    const auto plans = host.requests_for("orchestrator");
    ASSERT_GE(plans.size(), 2u);
    EXPECT_THAT(plans[1].messages.back().content, HasSubstr("not valid"));
    EXPECT_THAT(plans[1].messages.back().content, HasSubstr("\"thought\""));
    EXPECT_EQ(plans[1].messages[plans[1].messages.size() - 2].content, "I think we should list the tasks.");
}

TEST(ReactLoop, FailsGracefullyWhenThePlannerStaysInvalid) {
    op::OperatorConfig config;
    config.error_retry = false;
    OperatorHost host({{"orchestrator", "no json here"}, {"orchestrator", "{\"thought\": \"hmm\"}"}}, config);
    auto run = host.op().run("List my tasks", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::failed);
    ASSERT_TRUE(run->error);
    EXPECT_EQ(run->error->code, "PLANNER_OUTPUT_INVALID");
    EXPECT_THAT(run->error->message, HasSubstr("twice"));
}

TEST(ReactLoop, TrimsOlderStepsToOneLineEach) {
    op::OperatorConfig config;
    config.trim_to_last_n = 2;
    std::vector<Reply> script;
    for (int i = 1; i <= 5; ++i)
        script.push_back({"orchestrator", act("task_list", "{\"limit\":" + std::to_string(i) + "}")});
    script.push_back({"orchestrator", respond("default")});
    OperatorHost host(script, config);
    host.call("task_create", R"({"title":"Water the plants"})");
    auto run = host.op().run("Check my task list several ways", host.user());
    ASSERT_TRUE(run.ok());
    const auto plans = host.requests_for("orchestrator");
    ASSERT_EQ(plans.size(), 6u);
    const std::string last = plans[5].messages[1].content;
    EXPECT_THAT(last, HasSubstr("Step 1: task_list {\"limit\":1} → ok"));
    EXPECT_THAT(last, HasSubstr("Step 3: task_list"));
    EXPECT_THAT(last, Not(HasSubstr("Observation 1:")));
    EXPECT_THAT(last, Not(HasSubstr("Observation 3:")));
    EXPECT_THAT(last, HasSubstr("Observation 4:"));
    EXPECT_THAT(last, HasSubstr("Observation 5:"));
}

TEST(ReactLoop, AtTheStepLimitAFinalStepSummarisesWithoutTools) {
    op::OperatorConfig config;
    config.max_steps = 2;
    OperatorHost host({{"orchestrator", act("task_list", R"({"limit":1})")},
                       {"orchestrator", act("task_find", R"({"query":"plants"})")},
                       {"persona", "Found the task Water the plants; the due date is still missing."}},
                      config);
    host.call("task_create", R"({"title":"Water the plants"})");
    auto run = host.op().run("When is the plants task due and who owns it", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed);
    EXPECT_EQ(run->response_style, "summary");
    EXPECT_THAT(run->answer, HasSubstr("still missing"));
    const auto answers = host.requests_for("persona");
    ASSERT_EQ(answers.size(), 1u);
    EXPECT_THAT(all_text(answers[0]), HasSubstr("step limit was reached"));
}

TEST(ReactLoop, EmitsEventsInOrderAndPersistsEveryRun) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")}, {"orchestrator", respond("default")}});
    EventLog events;
    auto run = host.op().run("Summarize my workload", host.user(), {}, &events);
    ASSERT_TRUE(run.ok());
    const auto types = events.types();
    ASSERT_GE(types.size(), 4u);
    EXPECT_EQ(types.back(), "completion");
    EXPECT_NE(std::find(types.begin(), types.end(), "action"), types.end());
    EXPECT_NE(std::find(types.begin(), types.end(), "observation"), types.end());
    auto stored = host.runs().get(run->id);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->status, RunStatus::completed);
    EXPECT_EQ(stored->steps.size(), run->steps.size());
    EXPECT_EQ(stored->answer, run->answer);
    EXPECT_GT(stored->tokens.at("orchestrator").calls, 0);
}

TEST(ReactLoop, TheSameResultThreeTimesCountsAsNoProgress) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", act("task_list", "{}")},
                       {"orchestrator", act("task_list", "{}")},
                       {"orchestrator", respond("default")}});
    host.call("task_create", R"({"title":"Water the plants"})");
    EventLog events;
    auto run = host.op().run("Summarize my workload", host.user(), {}, &events);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed);
    ASSERT_EQ(run->steps.size(), 4u);
    EXPECT_TRUE(run->steps[1].observation->success);
    EXPECT_FALSE(run->steps[2].observation->success);
    EXPECT_EQ(run->steps[2].observation->error->code, "NO_PROGRESS");
    EXPECT_TRUE(events.has(op::RunEventType::warning, "no progress"));
    const auto plans = host.requests_for("orchestrator");
    ASSERT_EQ(plans.size(), 4u);
    EXPECT_THAT(all_text(plans[3]), HasSubstr("Warning: no progress"));
}

TEST(ReactLoop, PolicyRefusalsReachThePlannerAsObservations) {
    OperatorHost host({{"orchestrator", act("fs_read", R"({"path":"keys/server.pem"})")},
                       {"orchestrator", respond("default", "reading keys is not allowed")}},
                      {}, "global:\n  deny:\n    - \"fs_*(path=**/*.pem)\"\n");
    write_file(host.workspace() / "keys" / "server.pem", "SECRET\n");
    auto run = host.op().run("Read keys/server.pem", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed);
    const auto& obs = *run->steps[0].observation;
    EXPECT_FALSE(obs.success);
    EXPECT_EQ(obs.error->code, "DENIED_BY_RULE");
    EXPECT_THAT(run->answer, Not(HasSubstr("SECRET")));
    for (const auto& step : run->steps) {
        if (step.observation) {
            EXPECT_THAT(step.observation->content, Not(HasSubstr("SECRET")));
        }
    }
}

// Cancels the run from "another thread" (here: the event callback) once the first action starts.
class CancelOnFirstAction final : public op::RunEventSubscriber {
public:
    std::shared_ptr<std::atomic<bool>> flag = std::make_shared<std::atomic<bool>>(false);
    void on_event(const op::RunEvent& event) override {
        if (event.type == op::RunEventType::action) flag->store(true);
    }
};

TEST(ReactLoop, ACancelledRunStopsAfterTheCurrentStepAndSaysSo) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", act("task_list", R"({"limit":2})")},
                       {"orchestrator", respond("default")}});
    CancelOnFirstAction canceller;
    op::RunOptions options;
    options.cancel = canceller.flag;
    auto run = host.op().run("Summarize my workload", host.user(), options, &canceller);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::cancelled);
    ASSERT_TRUE(run->error);
    EXPECT_EQ(run->error->code, "RUN_CANCELLED");
    EXPECT_LE(run->steps.size(), 1u);
    EXPECT_EQ(host.requests_for("orchestrator").size(), 1u);
    EXPECT_EQ(host.runs().get(run->id)->status, RunStatus::cancelled);
}

}  // namespace
}  // namespace skillhost::testing
