// Runs that pause (approval, guidance) and resume, also across a restart of the host.
#include "operator/operator_host.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::testing {
namespace {

namespace json = boost::json;
using store::RunStatus;
using ::testing::HasSubstr;

std::string all_text(const llm::ChatRequest& request) {
    std::string out;
    for (const auto& m : request.messages) out += m.content + "\n";
    return out;
}

const decisions::Resolver kAlice{"alice", auth::Role::standard};

TEST(Approvals, RunPausesThenResumesWithTheApprovedCallsRealResultAfterARestart) {
    OperatorHost host({{"orchestrator", act("task_create", R"({"title":"Call the dentist"})")},
                       {"orchestrator", respond("default")}});
    EventLog events;
    auto run = host.op().run("Create a task to call the dentist",
                             host.user(auth::CognitiveMode::agent, manifest::TrustLevel::suggest), {}, &events);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::awaiting_approval);
    ASSERT_FALSE(run->approval_id.empty());
    EXPECT_TRUE(events.has(op::RunEventType::approval_required, run->approval_id));
    auto none = host.call("task_list", "{}");
    EXPECT_EQ(none.output.at("count"), 0);

    auto stored = host.runs().get(run->id);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->status, RunStatus::awaiting_approval);

    auto early = host.op().resume_after_approval(run->id);
    ASSERT_FALSE(early.ok());
    EXPECT_EQ(early.error().code, "APPROVAL_STILL_PENDING");

    auto approved = host.pipeline().approve(host.catalog(), run->approval_id, kAlice);
    ASSERT_TRUE(approved.ok()) << approved.error().message;
    EXPECT_TRUE(approved->result.ok);

    auto restarted = host.restarted_operator();
    auto resumed = restarted->resume_after_approval(run->id);
    ASSERT_TRUE(resumed.ok()) << resumed.error().message;
    EXPECT_EQ(resumed->status, RunStatus::completed);
    EXPECT_TRUE(resumed->steps[0].observation->success);
    EXPECT_THAT(resumed->steps[0].observation->content, HasSubstr("Call the dentist"));
    EXPECT_THAT(resumed->answer, HasSubstr("dentist"));
    auto tasks = host.call("task_list", "{}");
    EXPECT_EQ(tasks.output.at("count"), 1);  // executed exactly once
}

TEST(Approvals, ARejectedActionBecomesAnObservationAndThePlannerAdapts) {
    OperatorHost host({{"orchestrator", act("fs_write", R"({"path":"notes.txt","content":"hi"})")},
                       {"orchestrator", respond("default", "the user did not want the file written")}});
    auto run =
        host.op().run("Write hi into notes.txt", host.user(auth::CognitiveMode::agent, manifest::TrustLevel::suggest));
    ASSERT_TRUE(run.ok());
    ASSERT_EQ(run->status, RunStatus::awaiting_approval);
    ASSERT_TRUE(host.pipeline().reject(run->approval_id, kAlice, "not now").ok());

    auto resumed = host.op().resume_after_approval(run->id);
    ASSERT_TRUE(resumed.ok()) << resumed.error().message;
    EXPECT_EQ(resumed->status, RunStatus::completed);
    const auto& obs = *resumed->steps[0].observation;
    EXPECT_FALSE(obs.success);
    EXPECT_EQ(obs.error->code, "USER_REJECTED");
    EXPECT_THAT(obs.error->message, HasSubstr("user rejected the action: not now"));
    const auto plans = host.requests_for("orchestrator");
    ASSERT_EQ(plans.size(), 2u);
    EXPECT_THAT(all_text(plans[1]), HasSubstr("user rejected the action: not now"));
    EXPECT_FALSE(std::filesystem::exists(host.workspace() / "notes.txt"));
}

TEST(Guidance, StuckRunIsGuidedToSuccessAndThePlaybookHelpsTheNextRun) {
    OperatorHost host({{"orchestrator", act("fs_read", R"({"path":"a.txt"})")},
                       {"orchestrator", act("fs_read", R"({"path":"b.txt"})")},
                       {"orchestrator", act("fs_read", R"({"path":"c.txt"})")},
                       // after guidance
                       {"orchestrator", act("fs_read", R"({"path":"notes/shopping.md"})")},
                       {"orchestrator", respond("default")},
                       // the next run with a similar goal
                       {"orchestrator", act("fs_read", R"({"path":"notes/shopping.md"})")},
                       {"orchestrator", respond("default")}});
    write_file(host.workspace() / "notes" / "shopping.md", "- eggs\n- flour\n");

    auto run = host.op().run("What is on my shopping list?", host.user());
    ASSERT_TRUE(run.ok());
    ASSERT_EQ(run->status, RunStatus::needs_guidance);
    ASSERT_TRUE(run->error);
    EXPECT_EQ(run->error->details.at("type"), "stuck");
    EXPECT_THAT(run->error->message, HasSubstr("skillhost guide " + run->id));

    auto wrong = host.op().guide("run-doesnotexist", "x");
    EXPECT_EQ(wrong.error().code, "RUN_NOT_FOUND");
    auto empty = host.op().guide(run->id, "  ");
    EXPECT_EQ(empty.error().code, "GUIDANCE_EMPTY");

    auto guided = host.op().guide(run->id, "The shopping list is the file notes/shopping.md");
    ASSERT_TRUE(guided.ok()) << guided.error().message;
    EXPECT_EQ(guided->status, RunStatus::completed);
    EXPECT_THAT(guided->answer, HasSubstr("eggs"));
    const auto plans = host.requests_for("orchestrator");
    ASSERT_GE(plans.size(), 4u);
    EXPECT_THAT(all_text(plans[3]), HasSubstr("User guidance: The shopping list is the file notes/shopping.md"));

    auto found = host.guidance().find_playbooks("alice", "what is on the shopping list today");
    ASSERT_TRUE(found.ok());
    ASSERT_EQ(found->size(), 1u);
    EXPECT_EQ(found->front().guidance, "The shopping list is the file notes/shopping.md");
    ASSERT_EQ(found->front().steps.size(), 1u);
    EXPECT_THAT(found->front().steps[0], HasSubstr("notes/shopping.md"));
    auto record = host.guidance().get_guidance(found->front().source_guidance_id);
    ASSERT_TRUE(record.ok());
    EXPECT_EQ(record->outcome, "succeeded");
    EXPECT_EQ(record->run_id, run->id);

    auto next = host.op().run("Show the shopping list", host.user());
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(next->status, RunStatus::completed);
    EXPECT_EQ(next->playbooks_used.size(), 1u);
    const auto later = host.requests_for("orchestrator");
    ASSERT_GE(later.size(), 6u);
    EXPECT_THAT(later[5].messages[0].content, HasSubstr("Playbooks"));
    EXPECT_THAT(later[5].messages[0].content, HasSubstr("notes/shopping.md"));
}

TEST(Guidance, OnlyRunsThatNeedGuidanceCanBeGuided) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")}, {"orchestrator", respond("verbatim")}});
    auto run = host.op().run("List my tasks", host.user());
    ASSERT_TRUE(run.ok());
    auto guided = host.op().guide(run->id, "try harder");
    ASSERT_FALSE(guided.ok());
    EXPECT_EQ(guided.error().code, "RUN_NOT_WAITING_FOR_GUIDANCE");
}

TEST(AdaptiveRetry, AFailedAttemptIsRetriedWithWhatFailed) {
    op::OperatorConfig config;
    config.max_retries = 1;
    OperatorHost host({{"orchestrator", "not a plan"},
                       {"orchestrator", "still not a plan"},
                       {"orchestrator", act("task_list", "{}")},
                       {"orchestrator", respond("verbatim")}},
                      config);
    EventLog events;
    auto run = host.op().run("List my tasks", host.user(), {}, &events);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed);
    EXPECT_EQ(run->attempt, 2);
    EXPECT_TRUE(events.has(op::RunEventType::warning, "attempt 2"));
    const auto plans = host.requests_for("orchestrator");
    ASSERT_EQ(plans.size(), 4u);  // invalid, invalid again (attempt 1 fails), then the new attempt
    EXPECT_THAT(all_text(plans[1]), ::testing::Not(HasSubstr("Previous attempt")));
    EXPECT_THAT(all_text(plans[2]), HasSubstr("Previous attempt"));
    EXPECT_THAT(all_text(plans[2]), HasSubstr("PLANNER_OUTPUT_INVALID"));
    EXPECT_THAT(all_text(plans[2]), HasSubstr("Try a different approach"));
}

TEST(AdaptiveRetry, TheCriticCanRejectAnAnswer) {
    op::OperatorConfig config;
    config.critic = true;
    config.max_retries = 1;
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", respond("default")},
                       {"critic", R"({"approved": false, "feedback": "the answer ignores priorities"})"},
                       {"orchestrator", act("task_list", R"({"priority":"high"})")},
                       {"orchestrator", respond("default")},
                       {"critic", R"({"approved": true})"}},
                      config);
    host.call("task_create", R"({"title":"Water the plants","priority":"high"})");
    auto run = host.op().run("Which of my tasks matter most", host.user());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, RunStatus::completed);
    EXPECT_EQ(run->attempt, 2);
    const auto plans = host.requests_for("orchestrator");
    ASSERT_EQ(plans.size(), 4u);
    EXPECT_THAT(all_text(plans[2]), HasSubstr("the answer ignores priorities"));
}

}  // namespace
}  // namespace skillhost::testing
