// Runs, guidance and playbooks in a real skillhost.db; the runs also in a real PostgreSQL database.
#include "db/backend_connection.hpp"
#include "operator/error_codes.hpp"
#include "store/guidance_store.hpp"
#include "store/run_store.hpp"
#include "support/child_process.hpp"
#include "support/postgres_server.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <tuple>

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
    run.error = Error{errors::kRunStuck, "stuck", {}, {"guide it"}};
    run.error->details["type"] = "stuck";
    run.approval_id = "apr-0000000000000001";
    run.attempt = 2;
    run.history = {"User guidance: look in docs"};
    return run;
}

class RunStoreOnEachBackend : public testing::OnEachBackend {
protected:
    Result<std::unique_ptr<RunStore>> open(RunOwnership ownership = {}) const {
        return RunStore::open(location(), std::move(ownership));
    }
    Result<std::unique_ptr<GuidanceStore>> open_guidance() const { return GuidanceStore::open(location()); }
    // How a child process names this store: BACKEND TARGET.
    std::vector<std::string> target() const {
        return GetParam() == db::StorageBackend::postgres
                   ? std::vector<std::string>{"postgres", postgres_url}
                   : std::vector<std::string>{"sqlite", (home / "skillhost.db").string()};
    }
};

SKILLHOST_ON_EACH_BACKEND(RunStoreOnEachBackend);

class GuidanceStoreOnEachBackend : public RunStoreOnEachBackend {};
SKILLHOST_ON_EACH_BACKEND(GuidanceStoreOnEachBackend);

TEST_P(RunStoreOnEachBackend, SavesAndReadsBackEveryField) {
    auto store = open();
    ASSERT_TRUE(store.ok()) << store.error().message;
    store::Run run = sample_run("alice", RunStatus::awaiting_approval);
    ASSERT_TRUE((*store)->save(run).ok());
    auto back = (*store)->get(run.id);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(boost::json::serialize(back->to_json()), boost::json::serialize(run.to_json()));
    EXPECT_EQ(back->steps[0].observation->error->suggestions, std::vector<std::string>{"Use fs_list"});
    EXPECT_EQ(back->tokens.at("orchestrator").prompt, 120);
}

TEST_P(RunStoreOnEachBackend, SurvivesReopeningTheDatabase) {
    store::Run run = sample_run("alice", RunStatus::awaiting_approval);
    {
        auto store = open();
        ASSERT_TRUE(store.ok());
        ASSERT_TRUE((*store)->save(run).ok());
        run.status = RunStatus::completed;
        ASSERT_TRUE((*store)->save(run).ok());  // an update, not a second row
    }
    auto store = open();
    ASSERT_TRUE(store.ok());
    auto all = (*store)->list();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 1u);
    EXPECT_EQ(all->front().status, RunStatus::completed);
}

TEST_P(RunStoreOnEachBackend, ListsNewestFirstFilteredByUserAndStatus) {
    auto store = open();
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

TEST_P(RunStoreOnEachBackend, UnknownRunSaysHowToFindOne) {
    auto store = open();
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

TEST_P(GuidanceStoreOnEachBackend, RecordsGuidanceAndItsOutcome) {
    auto store = open_guidance();
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

TEST_P(GuidanceStoreOnEachBackend, FindsPlaybooksBySimilarGoalForThatUserOnly) {
    auto store = open_guidance();
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

TEST_P(GuidanceStoreOnEachBackend, ListsAUsersPlaybooksNewestFirstInBoundedPages) {
    auto store = open_guidance();
    ASSERT_TRUE(store.ok());
    std::set<std::string> alices;
    for (int i = 0; i < 5; ++i) {
        Playbook p{"", "alice", "goal " + std::to_string(i), "advice", {"fs_list {}"}, "gdn-" + std::to_string(i)};
        ASSERT_TRUE((*store)->add_playbook(p).ok());
        alices.insert(p.id);
    }
    Playbook bobs{"", "bob", "bob's goal", "bob's advice", {}, "gdn-9"};
    ASSERT_TRUE((*store)->add_playbook(bobs).ok());

    // Pages of two: 2 + 2 + 1, each newest first, every playbook of alice's exactly once.
    std::vector<Playbook> seen;
    std::string cursor;
    int pages = 0;
    do {
        auto page = (*store)->list_playbooks("alice", 2, cursor);
        ASSERT_TRUE(page.ok()) << page.error().message;
        ASSERT_LE(page->playbooks.size(), 2u);
        seen.insert(seen.end(), page->playbooks.begin(), page->playbooks.end());
        cursor = page->next_cursor;
        ASSERT_LT(++pages, 10) << "the cursor does not advance";
    } while (!cursor.empty());
    EXPECT_EQ(pages, 3);
    std::set<std::string> ids;
    for (const auto& p : seen) ids.insert(p.id);
    EXPECT_EQ(ids, alices);
    EXPECT_EQ(seen.size(), 5u);
    for (std::size_t i = 1; i < seen.size(); ++i)
        EXPECT_TRUE(std::tie(seen[i - 1].created_ms, seen[i - 1].id) > std::tie(seen[i].created_ms, seen[i].id));
    EXPECT_EQ(seen.front().steps, std::vector<std::string>{"fs_list {}"});

    // The page size is bounded both ways; a cursor not issued by the store is refused.
    auto one = (*store)->list_playbooks("alice", 0);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->playbooks.size(), 1u);
    auto all = (*store)->list_playbooks("alice", std::size_t{1} << 40);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->playbooks.size(), 5u);
    EXPECT_TRUE(all->next_cursor.empty());
    for (const char* bad : {"garbage", ":pbk-1", "-5:pbk-1", "99999999999999999999999:x", "12x:pbk"}) {
        auto refused = (*store)->list_playbooks("alice", 2, bad);
        ASSERT_FALSE(refused.ok()) << bad;
        EXPECT_EQ(refused.error().code, "INVALID_CURSOR");
    }
    auto nobody = (*store)->list_playbooks("carol", 10);
    ASSERT_TRUE(nobody.ok());
    EXPECT_TRUE(nobody->playbooks.empty());
}

TEST(GuidanceStore, FtsQueryQuotesWordsAndDropsStopWords) {
    EXPECT_EQ(fts_any_words_query("What is the budget?"), "\"budget\"");
    EXPECT_EQ(fts_any_words_query("the a of"), "");
}

TEST_P(RunStoreOnEachBackend, ResumingIsACompareAndSetSoOnlyOneOfTwoResumersDrivesTheRun) {
    auto first = open(RunOwnership{"host/1/1", nullptr});
    auto second = open(RunOwnership{"host/2/2", nullptr});
    ASSERT_TRUE(first.ok() && second.ok());
    store::Run run = sample_run("alice", RunStatus::awaiting_approval);
    ASSERT_TRUE((*first)->save(run).ok());
    // Both read it while it still waits, as two processes resuming after the approval would.
    auto a = (*first)->get(run.id);
    auto b = (*second)->get(run.id);
    ASSERT_TRUE(a.ok() && b.ok());
    a->status = RunStatus::running;
    b->status = RunStatus::running;
    b->steps.clear();  // what the loser would have written must not land
    ASSERT_TRUE((*first)->claim(*a, RunStatus::awaiting_approval).ok());
    auto lost = (*second)->claim(*b, RunStatus::awaiting_approval);
    ASSERT_FALSE(lost.ok());
    EXPECT_EQ(lost.error().code, "RUN_ALREADY_RESUMED");
    EXPECT_EQ(lost.error().details.at("status").as_string(), "running");
    auto stored = (*first)->get(run.id);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->status, RunStatus::running);
    EXPECT_EQ(stored->steps.size(), 1u);
}

TEST_P(RunStoreOnEachBackend, OfManyProcessesResumingOneRunExactlyOneClaimsIt) {
    auto store = open();
    ASSERT_TRUE(store.ok());
    store::Run run = sample_run("alice", RunStatus::awaiting_approval);
    ASSERT_TRUE((*store)->save(run).ok());
    const auto start = home / "start";
    std::vector<std::unique_ptr<skillhost::testing::ChildProcess>> racers;
    for (int i = 0; i < 4; ++i) {
        racers.push_back(std::make_unique<skillhost::testing::ChildProcess>(
            std::vector<std::string>{SKILLHOST_RUN_RESUMER, target()[0], target()[1], run.id, start.string()}));
    }
    testing::write_file(start, "go");
    int drivers = 0, losers = 0;
    for (auto& racer : racers) {
        const int code = racer->wait(std::chrono::seconds(60));
        if (code == 0) ++drivers;
        if (code == 3) ++losers;
        EXPECT_TRUE(code == 0 || code == 3) << "exit " << code << ": " << racer->stderr_text();
    }
    EXPECT_EQ(drivers, 1);
    EXPECT_EQ(losers, 3);
}

// Whatever was stored of it (here a record damaged beyond reading), a run whose process died does
// not stay `running` forever.
TEST_P(RunStoreOnEachBackend, ARunningRunWithAnUnreadableRecordIsStillMarkedInterrupted) {
    auto alive = [](std::string_view owner) { return owner != "host/dead/1"; };
    auto dead_host = open(RunOwnership{"host/dead/1", alive});
    ASSERT_TRUE(dead_host.ok());
    store::Run orphan = sample_run("alice", RunStatus::running);
    ASSERT_TRUE((*dead_host)->save(orphan).ok());
    auto raw = db::BackendConnection::open(location());
    ASSERT_TRUE(raw.ok()) << raw.error().message;
    ASSERT_TRUE((*raw)->run("damaging a record", "UPDATE runs SET record = ? WHERE id = ?", {"{\"trunc", orphan.id}));

    auto restarted = open(RunOwnership{"host/new/3", alive});
    ASSERT_TRUE(restarted.ok());
    auto marked = (*restarted)->mark_interrupted();
    ASSERT_TRUE(marked.ok()) << marked.error().message;
    EXPECT_EQ(marked.value(), std::vector<std::string>{orphan.id});
    auto counts = (*restarted)->count_by_status();
    ASSERT_TRUE(counts.ok());
    EXPECT_EQ(counts->count("running"), 0u) << "the run still counts as running";
    EXPECT_EQ(counts->at("interrupted"), 1u);
}

TEST_P(RunStoreOnEachBackend, RunsOfADeadProcessBecomeInterruptedAndRunsOfLiveOnesStay) {
    auto alive = [](std::string_view owner) { return owner != "host/dead/1"; };
    auto dead_host = open(RunOwnership{"host/dead/1", alive});
    auto live_cli = open(RunOwnership{"host/cli/2", alive});
    auto unowned = open();
    ASSERT_TRUE(dead_host.ok() && live_cli.ok() && unowned.ok());
    store::Run orphan = sample_run("alice", RunStatus::running);
    orphan.error.reset();
    store::Run driven = sample_run("alice", RunStatus::running);
    store::Run legacy = sample_run("alice", RunStatus::running);
    store::Run paused = sample_run("alice", RunStatus::awaiting_approval);
    ASSERT_TRUE((*dead_host)->save(orphan).ok());
    ASSERT_TRUE((*dead_host)->save(paused).ok());  // paused runs are owned by nobody
    ASSERT_TRUE((*live_cli)->save(driven).ok());
    ASSERT_TRUE((*unowned)->save(legacy).ok());

    auto restarted = open(RunOwnership{"host/new/3", alive});
    ASSERT_TRUE(restarted.ok());
    auto marked = (*restarted)->mark_interrupted();
    ASSERT_TRUE(marked.ok()) << marked.error().message;
    EXPECT_EQ(marked.value(), std::vector<std::string>{orphan.id});
    auto back = (*restarted)->get(orphan.id);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->status, RunStatus::interrupted);
    ASSERT_TRUE(back->error);
    EXPECT_EQ(back->error->code, "RUN_INTERRUPTED");
    EXPECT_THAT(back->error->message, HasSubstr("runs resume " + orphan.id));
    EXPECT_EQ(back->steps.size(), 1u);  // resumable from its last saved step
    EXPECT_EQ((*restarted)->get(driven.id)->status, RunStatus::running);
    EXPECT_EQ((*restarted)->get(legacy.id)->status, RunStatus::running);
    EXPECT_EQ((*restarted)->get(paused.id)->status, RunStatus::awaiting_approval);
    EXPECT_TRUE((*restarted)->mark_interrupted()->empty());  // once

    // Resuming it is a compare-and-set from interrupted, like any other resume.
    back->status = RunStatus::running;
    EXPECT_TRUE((*restarted)->claim(*back, RunStatus::interrupted).ok());
    EXPECT_EQ((*live_cli)->claim(*back, RunStatus::interrupted).error().code, "RUN_ALREADY_RESUMED");
}

}  // namespace
}  // namespace skillhost::store
