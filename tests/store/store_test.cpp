// Runs, guidance and playbooks in a real skillhost.db.
#include "store/guidance_store.hpp"
#include "store/run_store.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::store {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

Run sample_run(const std::string& user, RunStatus status) {
    Run run;
    run.id = new_id("run");
    run.goal = "Read README.md";
    run.user_id = user;
    run.mode = "agent";
    run.status = status;
    ScratchpadEntry entry;
    entry.step = 1;
    entry.thought = "read it";
    entry.action = Action{"fs_read", boost::json::parse(R"({"path":"README.md"})").as_object()};
    Observation obs;
    obs.mode = ObservationMode::structured;
    obs.content = "content: hi";
    obs.raw = boost::json::parse(R"({"content":"hi"})");
    obs.success = false;
    obs.error = ObservationError{"FILE_NOT_FOUND", "no such file", {"Use fs_list"}};
    entry.observation = obs;
    entry.warnings = {"auto-fixed path: /README.md → README.md"};
    entry.duration_us = 42;
    run.steps.push_back(entry);
    run.tokens["orchestrator"] = TokenUsage{120, 30, 2};
    run.answer = "hi";
    run.verbatim = true;
    run.grounding = GroundingResult{true, false, {"Buy milk"}, {"Buy bread"}, "withheld"};
    run.error = Error{"RUN_STUCK", "stuck", {}, {"guide it"}};
    run.error->details["type"] = "stuck";
    run.approval_id = "apr-0000000000000001";
    run.attempt = 2;
    run.history = {"User guidance: look in docs"};
    return run;
}

TEST(RunStore, SavesAndReadsBackEveryField) {
    TempDir home;
    auto store = RunStore::open(home / "skillhost.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    store::Run run = sample_run("alice", RunStatus::awaiting_approval);
    ASSERT_TRUE((*store)->save(run).ok());
    auto back = (*store)->get(run.id);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(boost::json::serialize(back->to_json()), boost::json::serialize(run.to_json()));
    EXPECT_EQ(back->steps[0].observation->error->suggestions, std::vector<std::string>{"Use fs_list"});
    EXPECT_EQ(back->tokens.at("orchestrator").prompt, 120);
}

TEST(RunStore, SurvivesReopeningTheDatabase) {
    TempDir home;
    store::Run run = sample_run("alice", RunStatus::awaiting_approval);
    {
        auto store = RunStore::open(home / "skillhost.db");
        ASSERT_TRUE(store.ok());
        ASSERT_TRUE((*store)->save(run).ok());
        run.status = RunStatus::completed;
        ASSERT_TRUE((*store)->save(run).ok());  // an update, not a second row
    }
    auto store = RunStore::open(home / "skillhost.db");
    ASSERT_TRUE(store.ok());
    auto all = (*store)->list();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 1u);
    EXPECT_EQ(all->front().status, RunStatus::completed);
}

TEST(RunStore, ListsNewestFirstFilteredByUserAndStatus) {
    TempDir home;
    auto store = RunStore::open(home / "skillhost.db");
    ASSERT_TRUE(store.ok());
    std::vector<std::string> ids;
    for (int i = 0; i < 4; ++i) {
        store::Run run = sample_run(i % 2 ? "bob" : "alice", i == 3 ? RunStatus::failed : RunStatus::completed);
        run.created_ms = 1000 + i;
        ASSERT_TRUE((*store)->save(run).ok());
        ids.push_back(run.id);
    }
    auto alice = (*store)->list(RunFilter{"alice", std::nullopt, 0});
    ASSERT_TRUE(alice.ok());
    ASSERT_EQ(alice->size(), 2u);
    EXPECT_EQ(alice->at(0).id, ids[2]);
    EXPECT_EQ(alice->at(1).id, ids[0]);
    auto failed = (*store)->list(RunFilter{std::nullopt, RunStatus::failed, 0});
    ASSERT_TRUE(failed.ok());
    ASSERT_EQ(failed->size(), 1u);
    EXPECT_EQ(failed->front().id, ids[3]);
    auto limited = (*store)->list(RunFilter{std::nullopt, std::nullopt, 3});
    EXPECT_EQ(limited->size(), 3u);
}

TEST(RunStore, UnknownRunSaysHowToFindOne) {
    TempDir home;
    auto store = RunStore::open(home / "skillhost.db");
    ASSERT_TRUE(store.ok());
    auto missing = (*store)->get("run-nope");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, "RUN_NOT_FOUND");
    EXPECT_THAT(missing.error().message, HasSubstr("skillhost runs list"));
}

TEST(RunStore, RejectsARecordWithAnUnknownStatus) {
    auto parsed = Run::from_json(boost::json::parse(R"({"id":"run-1","status":"sleeping"})"));
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.error().code, "RUN_RECORD_INVALID");
}

TEST(GuidanceStore, RecordsGuidanceAndItsOutcome) {
    TempDir home;
    auto store = GuidanceStore::open(home / "skillhost.db");
    ASSERT_TRUE(store.ok());
    GuidanceRecord record;
    record.run_id = "run-1";
    record.user_id = "alice";
    record.goal = "find the budget";
    record.text = "it is in finance/budget.xlsx";
    record.situation = boost::json::object{{"tried", boost::json::array{"fs_read budget.xlsx"}}};
    ASSERT_TRUE((*store)->add_guidance(record).ok());
    EXPECT_THAT(record.id, ::testing::StartsWith("gdn-"));
    ASSERT_TRUE((*store)->set_outcome(record.id, "succeeded").ok());
    auto back = (*store)->get_guidance(record.id);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->outcome, "succeeded");
    EXPECT_EQ(back->text, record.text);
    EXPECT_EQ(back->situation, record.situation);
}

TEST(GuidanceStore, FindsPlaybooksBySimilarGoalForThatUserOnly) {
    TempDir home;
    auto store = GuidanceStore::open(home / "skillhost.db");
    ASSERT_TRUE(store.ok());
    Playbook budget{"",     "alice", "find the quarterly budget", "it is in finance/budget.xlsx", {"fs_read finance"},
                    "gdn-1"};
    Playbook garden{"", "alice", "plan the garden", "use the garden notes", {}, "gdn-2"};
    Playbook bobs{"", "bob", "find the budget", "bob's budget is elsewhere", {}, "gdn-3"};
    for (auto* p : {&budget, &garden, &bobs}) ASSERT_TRUE((*store)->add_playbook(*p).ok());

    auto found = (*store)->find_playbooks("alice", "Where is the budget?");
    ASSERT_TRUE(found.ok()) << found.error().message;
    ASSERT_EQ(found->size(), 1u);
    EXPECT_EQ(found->front().id, budget.id);
    EXPECT_EQ(found->front().steps, std::vector<std::string>{"fs_read finance"});

    auto none = (*store)->find_playbooks("alice", "what is the weather");
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->empty());
    // Quotes and FTS operators in a goal cannot break the query.
    auto odd = (*store)->find_playbooks("alice", "budget\" OR NEAR( * -garden");
    ASSERT_TRUE(odd.ok()) << odd.error().message;
}

TEST(GuidanceStore, FtsQueryQuotesWordsAndDropsStopWords) {
    EXPECT_EQ(fts_any_words_query("What is the budget?"), "\"budget\"");
    EXPECT_EQ(fts_any_words_query("the a of"), "");
}

}  // namespace
}  // namespace skillhost::store
