// The lightweight operator's routes, emulation mode, and the offline answers of the builtin model
// over demo data created through the pipeline.
#include "operator/operator_host.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ctime>

namespace skillhost::testing {
namespace {

namespace json = boost::json;
using auth::CognitiveMode;
using store::RunStatus;
using ::testing::HasSubstr;
using ::testing::Not;

std::string yesterday_noon() {
    std::time_t t = std::time(nullptr) - 24 * 3600;
    std::tm local{};
    localtime_r(&t, &local);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT12:00:00", &local);
    return buf;
}

void add_demo_data(OperatorHost& host) {
    host.call("task_create", R"({"title":"Renew the passport","priority":"high"})");
    host.call("task_create", R"({"title":"Water the plants"})");
    host.call("memory_capture", R"({"text":"Met Sam for lunch to plan the garden","kind":"event","timestamp":")" +
                                    yesterday_noon() + R"("})");
    host.call("memory_capture", R"({"text":"The dentist is Dr. Rivera on Elm Street","kind":"note"})");
    write_file(host.workspace() / "README.md", "# Demo project\nRun it with make.\n");
}

std::vector<std::string> tools_used(const store::Run& run) {
    std::vector<std::string> out;
    for (const auto& step : run.steps) {
        if (step.action) out.push_back(step.action->tool);
    }
    return out;
}

TEST(Lightweight, TaskIntentListsTasksVerbatim) {
    OperatorHost host;
    add_demo_data(host);
    auto run = host.op().run("What tasks do I have?", host.user(CognitiveMode::emulation));
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->route, "task");
    EXPECT_EQ(tools_used(*run), std::vector<std::string>{"task_list"});
    EXPECT_TRUE(run->verbatim);
    EXPECT_THAT(run->answer, HasSubstr("Renew the passport"));
    EXPECT_THAT(run->answer, HasSubstr("Water the plants"));
}

TEST(Lightweight, TemporalIntentReadsTheTimeWindow) {
    OperatorHost host;
    add_demo_data(host);
    auto run = host.op().run("What did I do yesterday?", host.user(CognitiveMode::emulation));
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->route, "temporal");
    ASSERT_EQ(tools_used(*run), std::vector<std::string>{"memory_recent"});
    EXPECT_EQ(run->steps[0].action->args.at("when"), "yesterday");
    EXPECT_THAT(run->answer, HasSubstr("Met Sam for lunch"));
    EXPECT_THAT(run->answer, Not(HasSubstr("Dr. Rivera")));
}

TEST(Lightweight, FactualIntentSearchesMemory) {
    OperatorHost host;
    add_demo_data(host);
    auto run = host.op().run("Who is my dentist?", host.user(CognitiveMode::emulation));
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->route, "factual");
    ASSERT_EQ(tools_used(*run), std::vector<std::string>{"memory_search"});
    EXPECT_THAT(run->answer, HasSubstr("Rivera"));
    // The builtin model's strict answer repeats only observed data, so it passes the grounding check.
    EXPECT_EQ(run->response_style, "strict");
    EXPECT_TRUE(run->grounding.checked);
    EXPECT_TRUE(run->grounding.passed) << run->to_json().at("grounding") << "\n" << run->answer;
}

TEST(Lightweight, CasualIntentRepliesWithoutTools) {
    OperatorHost host;
    for (auto mode : {CognitiveMode::emulation, CognitiveMode::agent}) {
        auto run = host.op().run("hello there", host.user(mode));
        ASSERT_TRUE(run.ok());
        EXPECT_EQ(run->route, "casual");
        EXPECT_TRUE(tools_used(*run).empty());
        EXPECT_EQ(run->status, RunStatus::completed);
        EXPECT_FALSE(run->answer.empty());
    }
}

TEST(Lightweight, ComplexIntentInEmulationSaysWhatItCannotDo) {
    OperatorHost host;
    auto run = host.op().run("Create a task to call the dentist", host.user(CognitiveMode::emulation));
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->route, "refused");
    EXPECT_TRUE(tools_used(*run).empty());
    EXPECT_THAT(run->answer, HasSubstr("skillhost mode set agent"));
    auto tasks = host.call("task_list", "{}");
    EXPECT_EQ(tasks.output.at("count"), 0);
}

TEST(Lightweight, ClassifierModelDecidesWhenItAnswersWithValidJson) {
    OperatorHost host(
        std::vector<Reply>{{"classifier", R"({"intent":"task","confidence":0.9,"reasoning":"about work"})"}});
    auto run = host.op().run("anything on my plate", host.user(CognitiveMode::emulation));
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->route, "task");
    EXPECT_EQ(host.requests_for("classifier").size(), 1u);
    ASSERT_TRUE(host.requests_for("classifier")[0].json_schema.has_value());
}

TEST(Lightweight, KeywordFallbackWhenTheClassifierAnswersNonsense) {
    OperatorHost host(std::vector<Reply>{{"classifier", "I'd say it's about tasks!"}});
    auto run = host.op().run("What tasks do I have?", host.user(CognitiveMode::emulation));
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->route, "task");
}

TEST(Emulation, PlannerNeverSeesWriteSkillsAndThePipelineRefusesThem) {
    OperatorHost host;
    const auto emulation = host.user(CognitiveMode::emulation);
    const auto catalog_view = host.op().planner_catalog(host.catalog(), emulation);
    EXPECT_THAT(catalog_view->text, HasSubstr("task_list"));
    EXPECT_THAT(catalog_view->text, Not(HasSubstr("task_create")));
    EXPECT_THAT(catalog_view->text, Not(HasSubstr("fs_write")));
    const auto agent_view = host.op().planner_catalog(host.catalog(), host.user(CognitiveMode::agent));
    EXPECT_THAT(agent_view->text, HasSubstr("task_create"));

    exec::CallRequest request;
    request.skill_id = "task_create";
    request.args = json::parse(R"({"title":"x"})");
    request.user = emulation;
    auto outcome = host.pipeline().call(host.catalog(), request);
    EXPECT_FALSE(outcome.result.ok);
    EXPECT_EQ(outcome.result.error.code, "MODE_FORBIDS");
}

// The README's promise: these work offline with no model at all.
TEST(BuiltinOffline, WhatTasksDoIHave) {
    OperatorHost host;
    add_demo_data(host);
    auto run = host.op().run("What tasks do I have?", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed) << run->to_json();
    EXPECT_EQ(tools_used(*run), std::vector<std::string>{"task_list"});
    EXPECT_THAT(run->answer, HasSubstr("Renew the passport"));
    EXPECT_THAT(run->answer, HasSubstr("Water the plants"));
}

TEST(BuiltinOffline, ShowMeReadme) {
    OperatorHost host;
    add_demo_data(host);
    auto run = host.op().run("Show me README.md", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed) << run->to_json();
    EXPECT_EQ(tools_used(*run), std::vector<std::string>{"fs_read"});
    EXPECT_TRUE(run->verbatim);
    EXPECT_THAT(run->answer, HasSubstr("Run it with make."));
}

TEST(BuiltinOffline, WhatDidIDoYesterday) {
    OperatorHost host;
    add_demo_data(host);
    auto run = host.op().run("What did I do yesterday?", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed) << run->to_json();
    ASSERT_FALSE(run->steps.empty());
    EXPECT_THAT(run->answer, HasSubstr("Met Sam for lunch"));
    EXPECT_THAT(run->answer, Not(HasSubstr("Rivera")));
}

TEST(BuiltinOffline, CreateATaskToCallTheDentist) {
    OperatorHost host;
    auto run = host.op().run("Create a task to call the dentist", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed) << run->to_json();
    EXPECT_EQ(tools_used(*run), std::vector<std::string>{"task_create"});
    auto tasks = host.call("task_list", "{}");
    ASSERT_EQ(tasks.output.at("count"), 1);
    EXPECT_THAT(json::serialize(tasks.output), HasSubstr("all the dentist"));
    EXPECT_THAT(run->answer, HasSubstr("dentist"));
}

}  // namespace
}  // namespace skillhost::testing
