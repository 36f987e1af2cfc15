// What happens after a failed grounding check, end to end with the scripted backend: one
// regeneration told exactly what was unsupported, then the observations instead of the answer.
#include "operator/grounding_fixture.hpp"
#include "server/metrics.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

std::string system_prompt(const llm::ChatRequest& request) {
    return request.messages.empty() ? std::string() : request.messages.front().content;
}

TEST(GroundingPaths, ARegeneratedAnswerThatPassesReachesTheUser) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", respond("default")},
                       {"persona", "You have seven open tasks; the first is to repaint the lighthouse."},
                       {"persona", "You have five open tasks; the first is to renew the boat insurance."}});
    seed_demo_data(host);
    EventLog events;
    auto run = host.op().run("How is my week looking?", host.user(), {}, &events);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, store::RunStatus::completed);
    EXPECT_EQ(run->answer, "You have five open tasks; the first is to renew the boat insurance.");
    EXPECT_TRUE(run->grounding.checked);
    EXPECT_TRUE(run->grounding.passed);
    EXPECT_EQ(run->grounding.outcome, "passed_after_regeneration");
    EXPECT_THAT(run->grounding.offending, Contains("seven"));
    EXPECT_TRUE(run->grounding.regenerated_offending.empty());
    // The persona was told exactly which item was unsupported, and why.
    const auto persona = host.requests_for("persona");
    ASSERT_EQ(persona.size(), 2u);
    EXPECT_THAT(system_prompt(persona[0]), Not(HasSubstr("do not support")));
    EXPECT_THAT(system_prompt(persona[1]), HasSubstr("do not support"));
    EXPECT_THAT(system_prompt(persona[1]), HasSubstr("- seven (count): the observations give 5"));
    EXPECT_TRUE(events.has(op::RunEventType::warning, "asking the model once more"));
    const auto counts = host.op().grounding_counts();
    EXPECT_EQ(counts.checks, 1u);
    EXPECT_EQ(counts.failures, 1u);
    EXPECT_EQ(counts.regenerated, 1u);
    EXPECT_EQ(counts.withheld, 0u);
}

TEST(GroundingPaths, TwoUnsupportedAnswersGiveTheUserTheObservationsAndTheRunRecordsWhy) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", respond("summary")},
                       {"persona", "Your friend Marcus says all your tasks are done."},
                       {"persona", "As Marcus confirmed, everything is done."}});
    seed_demo_data(host);
    EventLog events;
    auto run = host.op().run("How is my week looking?", host.user(), {}, &events);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, store::RunStatus::completed);
    EXPECT_FALSE(run->grounding.passed);
    EXPECT_EQ(run->grounding.outcome, "withheld");
    EXPECT_THAT(run->grounding.offending, Contains("Marcus"));
    EXPECT_THAT(run->grounding.regenerated_offending, Contains("Marcus"));
    // One line saying the answer could not be verified, then the structured observations.
    EXPECT_THAT(run->answer, ::testing::StartsWith("The model's answer could not be verified"));
    EXPECT_THAT(run->answer, HasSubstr("Renew the boat insurance"));
    EXPECT_THAT(run->answer, Not(HasSubstr("Marcus")));
    EXPECT_TRUE(events.has(op::RunEventType::warning, "showing the observations instead"));
    // The stored run has the check, the items and the outcome.
    auto stored = host.runs().get(run->id);
    ASSERT_TRUE(stored.ok());
    const auto grounding = stored->to_json().at("grounding");
    EXPECT_EQ(grounding.at("outcome"), "withheld");
    EXPECT_EQ(grounding.at("result"), "failed");
    EXPECT_THAT(boost::json::serialize(grounding.at("offending")), HasSubstr("Marcus"));
    EXPECT_EQ(host.op().grounding_counts().withheld, 1u);
    // The audit log has the check: run, outcome and each item with its reason.
    std::string audit;
    for (const auto& file : std::filesystem::directory_iterator(host.audit_dir())) audit += read_file(file.path());
    EXPECT_THAT(audit, HasSubstr("\"kind\":\"grounding\""));
    EXPECT_THAT(audit, HasSubstr("\"run_id\":\"" + run->id + "\""));
    EXPECT_THAT(audit, HasSubstr("\"outcome\":\"withheld\""));
    EXPECT_THAT(audit,
                HasSubstr("{\"kind\":\"name\",\"text\":\"Marcus\",\"reason\":\"no observation mentions this name\"}"));
}

TEST(GroundingPaths, ThePlannersStyleCannotSwitchTheCheckOff) {
    for (const char* style : {"default", "summary", "strict", "verbatim"}) {
        OperatorHost host({{"orchestrator", act("task_list", "{}")},
                           {"orchestrator", act("memory_recent", "{}")},
                           {"orchestrator", respond(style)},
                           {"persona", "Your tasks are at https://tasks.example.com/alice."},
                           {"persona", "Your tasks are at https://tasks.example.com/alice."}});
        seed_demo_data(host);
        auto run = host.op().run("How is my week looking?", host.user());
        ASSERT_TRUE(run.ok());
        EXPECT_TRUE(run->grounding.checked) << style;
        EXPECT_EQ(run->grounding.outcome, "withheld") << style;
    }
}

TEST(GroundingPaths, ConfigurationTurnsTheCheckOff) {
    op::OperatorConfig config;
    config.grounding = false;
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", respond("strict")},
                       {"persona", "You have seven open tasks."}},
                      config);
    seed_demo_data(host);
    auto run = host.op().run("How is my week looking?", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_FALSE(run->grounding.checked);
    EXPECT_EQ(run->answer, "You have seven open tasks.");
    EXPECT_EQ(host.op().grounding_counts().checks, 0u);
}

TEST(GroundingPaths, SmallTalkWithoutObservationsIsNotChecked) {
    OperatorHost host({{"orchestrator", respond("default")}, {"persona", "Hello Alice! Nice to hear from you."}});
    auto run = host.op().run("Please plan nothing and just greet me", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, store::RunStatus::completed);
    EXPECT_FALSE(run->grounding.checked);
    EXPECT_EQ(run->answer, "Hello Alice! Nice to hear from you.");
}

TEST(GroundingPaths, TheLightweightOperatorsAnswersAreChecked) {
    OperatorHost host({{"classifier", R"({"intent":"temporal","confidence":0.9})"},
                       {"persona", "Yesterday you had lunch with Jonathan."},
                       {"persona", "Yesterday you had lunch with Jonathan."}});
    seed_demo_data(host);
    auto run = host.op().run("What did I do yesterday?", host.user(auth::CognitiveMode::emulation));
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->route, "temporal");
    EXPECT_TRUE(run->grounding.checked);
    EXPECT_EQ(run->grounding.outcome, "withheld");
    EXPECT_THAT(run->grounding.offending, Contains("Jonathan"));
}

TEST(GroundingPaths, TheBuiltinModelsRenderingsPassTheCheck) {
    // No persona in the script: the built-in model writes the answers from its templates.
    for (const std::string data : {"tasks", "memories", "README.md", "docs/budget.csv", "missing.txt"}) {
        OperatorHost host({{"orchestrator", read_action(data)}, {"orchestrator", respond("default")}});
        seed_demo_data(host);
        auto run = host.op().run(goal_for(data), host.user());
        ASSERT_TRUE(run.ok());
        EXPECT_TRUE(run->grounding.checked) << data;
        EXPECT_EQ(run->grounding.outcome, "passed") << data << ": " << run->to_json().at("grounding") << "\n"
                                                    << run->answer;
        EXPECT_THAT(run->answer, HasSubstr("(answered by the built-in model, no LLM)")) << data;
    }
}

TEST(GroundingPaths, MetricsCountChecksAndFailuresByWhatTheUserGot) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", respond("default")},
                       {"persona", "You have seven open tasks."},
                       {"persona", "You have seven open tasks."}});
    seed_demo_data(host);
    ASSERT_TRUE(host.op().run("How is my week looking?", host.user()).ok());
    const auto counts = host.op().grounding_counts();
    server::MetricGauges gauges;
    gauges.grounding_checks = counts.checks;
    gauges.grounding_failures = counts.failures;
    gauges.grounding_regenerated = counts.regenerated;
    gauges.grounding_withheld = counts.withheld;
    const std::string text = server::Metrics().render(gauges);
    EXPECT_THAT(text,
                HasSubstr("# TYPE skillhost_grounding_checks_total counter\nskillhost_grounding_checks_total 1\n"));
    EXPECT_THAT(text, HasSubstr("skillhost_grounding_failures_total{outcome=\"withheld\"} 1\n"));
    EXPECT_THAT(text, HasSubstr("skillhost_grounding_failures_total{outcome=\"passed_after_regeneration\"} 0\n"));
}

}  // namespace
}  // namespace skillhost::testing
