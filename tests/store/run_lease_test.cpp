// Run leases: on both backends a run's steps are claimed once each under a lease; on PostgreSQL
// (several instances) a lease changes hands only after it expires, the instance that lost it can
// no longer claim or write, and the elected sweeper turns runs of dead instances into resumable ones.
#include "store/run_event_log.hpp"
#include "store/run_lease.hpp"
#include "store/run_store.hpp"
#include "db/postgres_connection.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace skillhost::store {
namespace {

using namespace std::chrono_literals;

Run running_run(std::string_view goal) {
    Run run;
    run.id = new_id("run");
    run.goal = std::string(goal);
    run.user_id = "alice";
    run.mode = "agent";
    run.status = RunStatus::running;
    return run;
}

// Waits (by asking, not by sleeping a guessed time) until `leases` can take the run's lease, which
// happens once the holder's short ttl passed. Fails after a minute, far beyond any ttl used here.
Result<RunLease> acquire_after_expiry(RunLeases& leases, std::string_view run_id) {
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    for (;;) {
        auto taken = leases.acquire(run_id);
        if (taken || taken.error().code != "RUN_LEASE_HELD" || std::chrono::steady_clock::now() > give_up) return taken;
        std::this_thread::sleep_for(20ms);
    }
}

// A running run whose lease `dead` (an instance with a 1 ms ttl) took and never extends.
Run orphaned_run(RunStore& runs, RunLeases& dead, std::string_view goal) {
    Run run = running_run(goal);
    EXPECT_TRUE(runs.save(run).ok());
    EXPECT_TRUE(dead.acquire(run.id).ok());
    return run;
}

class RunLeasesOnEachBackend : public testing::OnEachBackend {
protected:
    Result<std::unique_ptr<RunLeases>> open_leases(std::string instance, std::chrono::milliseconds ttl = 60s) const {
        return RunLeases::open(location(), std::move(instance), ttl);
    }
};

SKILLHOST_ON_EACH_BACKEND(RunLeasesOnEachBackend);

TEST_P(RunLeasesOnEachBackend, EachStepIsClaimedOnceInIncreasingOrderAndTheRunIsWrittenUnderTheLease) {
    auto runs = RunStore::open(location());
    auto leases = open_leases("instance-a");
    ASSERT_TRUE(runs.ok() && leases.ok()) << (runs ? leases.error().message : runs.error().message);
    store::Run run = running_run("count files");
    ASSERT_TRUE((*runs)->save(run).ok());
    auto lease = (*leases)->acquire(run.id);
    ASSERT_TRUE(lease.ok()) << lease.error().message;
    EXPECT_EQ(lease->owner, "instance-a");

    auto first = (*leases)->claim_step(*lease, 0);
    ASSERT_TRUE(first.ok()) << first.error().message;
    EXPECT_FALSE(first->retry);
    auto again = (*leases)->claim_step(*lease, 0);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, "STEP_ALREADY_CLAIMED");
    ASSERT_TRUE((*leases)->claim_step(*lease, 1).ok());
    auto backwards = (*leases)->claim_step(*lease, 0);
    ASSERT_FALSE(backwards.ok());
    EXPECT_EQ(backwards.error().code, "STEP_ALREADY_CLAIMED");

    run.answer = "3 files";
    run.status = RunStatus::completed;
    ASSERT_TRUE((*leases)->save_fenced(*lease, run).ok());
    EXPECT_TRUE((*leases)->heartbeat(*lease).ok());
    EXPECT_TRUE((*leases)->release(*lease).ok());
    auto stored = (*runs)->get(run.id);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->status, RunStatus::completed);
    EXPECT_EQ(stored->answer, "3 files");
}

TEST_P(RunLeasesOnEachBackend, ALeaseTakenAgainFencesOffTheEarlierOne) {
    auto runs = RunStore::open(location());
    auto leases = open_leases("instance-a");
    ASSERT_TRUE(runs.ok() && leases.ok());
    store::Run run = running_run("fenced");
    ASSERT_TRUE((*runs)->save(run).ok());
    auto old_lease = (*leases)->acquire(run.id);
    ASSERT_TRUE(old_lease.ok());
    ASSERT_TRUE((*leases)->claim_step(*old_lease, 0).ok());
    auto new_lease = (*leases)->acquire(run.id);  // the same instance resuming it anew
    ASSERT_TRUE(new_lease.ok());
    EXPECT_GT(new_lease->epoch, old_lease->epoch);

    run.answer = "stale";
    auto refused = (*leases)->save_fenced(*old_lease, run);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "RUN_LEASE_LOST");
    EXPECT_EQ((*leases)->claim_step(*old_lease, 1).error().code, "RUN_LEASE_LOST");
    EXPECT_EQ((*leases)->heartbeat(*old_lease).error().code, "RUN_LEASE_LOST");
    EXPECT_EQ((*runs)->get(run.id)->answer, "");
    // The step the earlier holder claimed may be claimed again, marked as a retry.
    auto retried = (*leases)->claim_step(*new_lease, 0);
    ASSERT_TRUE(retried.ok()) << retried.error().message;
    EXPECT_TRUE(retried->retry);
}

class PostgresRunLeases : public ::testing::Test {};

TEST_F(PostgresRunLeases, AnotherInstanceTakesARunOverOnlyAfterItsLeaseExpires) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto location = db::StorageLocation::postgres(url);
    auto runs = RunStore::open(location);
    auto a = RunLeases::open(location, "instance-a", 300ms);
    auto b = RunLeases::open(location, "instance-b", 60s);
    ASSERT_TRUE(runs.ok() && a.ok() && b.ok());
    store::Run run = running_run("take over");
    ASSERT_TRUE((*runs)->save(run).ok());
    auto held = (*a)->acquire(run.id);
    ASSERT_TRUE(held.ok()) << held.error().message;
    ASSERT_TRUE((*a)->claim_step(*held, 0).ok());

    auto refused = (*b)->acquire(run.id);
    // A 300 ms lease may already have expired on a loaded machine; only then may b take it here.
    if (!refused.ok()) {
        EXPECT_EQ(refused.error().code, "RUN_LEASE_HELD");
        EXPECT_EQ(refused.error().details.at("owner").as_string(), "instance-a");
    }
    auto taken = refused.ok() ? std::move(refused) : acquire_after_expiry(**b, run.id);
    ASSERT_TRUE(taken.ok()) << taken.error().message;
    EXPECT_EQ(taken->owner, "instance-b");
    EXPECT_GT(taken->epoch, held->epoch);

    // a stalled, not dead: everything it tries now is refused and nothing of it lands.
    EXPECT_EQ((*a)->heartbeat(*held).error().code, "RUN_LEASE_LOST");
    EXPECT_EQ((*a)->claim_step(*held, 1).error().code, "RUN_LEASE_LOST");
    store::Run stale = run;
    stale.answer = "from a";
    stale.status = RunStatus::completed;
    EXPECT_EQ((*a)->save_fenced(*held, stale).error().code, "RUN_LEASE_LOST");
    auto retried = (*b)->claim_step(*taken, 0);
    ASSERT_TRUE(retried.ok()) << retried.error().message;
    EXPECT_TRUE(retried->retry);
    run.status = RunStatus::completed;
    run.answer = "from b";
    ASSERT_TRUE((*b)->save_fenced(*taken, run).ok());
    EXPECT_EQ((*runs)->get(run.id)->answer, "from b");
}

// The run's shared event log is fenced like its record: an instance whose lease changed hands
// cannot add an event (RUN_LEASE_LOST, nothing written); the holder can, also after it released
// the lease (how the run ended is logged after the lease is given up), until it changes hands.
TEST_F(PostgresRunLeases, AnEventWrittenUnderALeaseThatChangedHandsIsRefusedAndNothingIsLogged) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto location = db::StorageLocation::postgres(url);
    auto runs = RunStore::open(location);
    auto log = RunEventLog::open(location);
    auto stalled = RunLeases::open(location, "instance-stalled", 1ms);
    auto taker = RunLeases::open(location, "instance-taker", 60s);
    ASSERT_TRUE(runs.ok() && log.ok() && stalled.ok() && taker.ok());
    const store::Run run = orphaned_run(**runs, **stalled, "logged by two instances");
    const std::int64_t old_epoch = 1;
    ASSERT_TRUE((*log)->append(run.id, "thought", "{}", old_epoch).ok());

    auto taken = acquire_after_expiry(**taker, run.id);
    ASSERT_TRUE(taken.ok()) << taken.error().message;
    ASSERT_GT(taken->epoch, old_epoch);
    auto refused = (*log)->append(run.id, "action", "{}", old_epoch);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "RUN_LEASE_LOST");
    ASSERT_EQ((*log)->read(run.id, 0)->size(), 1u);

    EXPECT_EQ((*log)->append(run.id, "action", "{}", taken->epoch).value(), 2);
    ASSERT_TRUE((*taker)->release(*taken).ok());
    EXPECT_EQ((*log)->append(run.id, "end", "{}", taken->epoch).value(), 3);
    EXPECT_EQ((*log)->append(run.id, "end", "{}", old_epoch).error().code, "RUN_LEASE_LOST");
    EXPECT_EQ((*log)->read(run.id, 0)->size(), 3u);
}

TEST_F(PostgresRunLeases, OfManyInstancesClaimingOneStepExactlyOneWins) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto location = db::StorageLocation::postgres(url);
    auto runs = RunStore::open(location);
    ASSERT_TRUE(runs.ok());
    store::Run run = running_run("race");
    ASSERT_TRUE((*runs)->save(run).ok());
    constexpr int instances = 4;
    std::vector<std::unique_ptr<RunLeases>> leases;
    for (int i = 0; i < instances; ++i) {
        auto opened = RunLeases::open(location, "instance-" + std::to_string(i), 60s);
        ASSERT_TRUE(opened.ok()) << opened.error().message;
        leases.push_back(std::move(opened.value()));
    }
    std::vector<std::string> outcomes(instances);
    std::vector<std::thread> threads;
    for (int i = 0; i < instances; ++i)
        threads.emplace_back([&, i] {
            auto lease = leases[i]->acquire(run.id);
            if (!lease) {
                outcomes[i] = lease.error().code;
                return;
            }
            auto claim = leases[i]->claim_step(*lease, 0);
            outcomes[i] = claim ? std::string("claimed") : claim.error().code.str();
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(std::count(outcomes.begin(), outcomes.end(), "claimed"), 1);
    EXPECT_EQ(std::count(outcomes.begin(), outcomes.end(), "RUN_LEASE_HELD"), instances - 1);
}

TEST_F(PostgresRunLeases, OneElectedSweeperInterruptsRunsOfDeadInstancesAndAnotherResumesThem) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto location = db::StorageLocation::postgres(url);
    auto runs = RunStore::open(location);
    auto dead = RunLeases::open(location, "instance-dead", 1ms);
    auto first = RunLeases::open(location, "instance-a", 60s);
    auto second = RunLeases::open(location, "instance-b", 60s);
    ASSERT_TRUE(runs.ok() && dead.ok() && first.ok() && second.ok());
    store::Run orphan = running_run("orphaned");
    store::Run alive = running_run("still driven");
    ASSERT_TRUE((*runs)->save(orphan).ok());
    ASSERT_TRUE((*runs)->save(alive).ok());
    auto orphan_lease = (*dead)->acquire(orphan.id);
    ASSERT_TRUE(orphan_lease.ok());
    ASSERT_TRUE((*first)->acquire(alive.id).ok());

    auto sweep_a = (*first)->sweep_expired();
    auto sweep_b = (*second)->sweep_expired();
    ASSERT_TRUE(sweep_a.ok() && sweep_b.ok()) << (sweep_a ? sweep_b.error().message : sweep_a.error().message);
    EXPECT_TRUE(sweep_a->elected);
    EXPECT_FALSE(sweep_b->elected);
    EXPECT_TRUE(sweep_b->interrupted.empty());
    // The 1 ms lease has expired by the time of the sweep unless the clock is very coarse: sweep
    // again until it is seen (bounded).
    std::vector<std::string> interrupted = sweep_a->interrupted;
    for (int i = 0; i < 100 && interrupted.empty(); ++i) {
        std::this_thread::sleep_for(10ms);
        interrupted = (*first)->sweep_expired()->interrupted;
    }
    ASSERT_EQ(interrupted, std::vector<std::string>{orphan.id});
    EXPECT_EQ((*runs)->get(orphan.id)->status, RunStatus::interrupted);
    EXPECT_EQ((*runs)->get(alive.id)->status, RunStatus::running);
    EXPECT_EQ((*dead)->save_fenced(*orphan_lease, orphan).error().code, "RUN_LEASE_LOST");

    // Any instance may now resume it: the run store's compare-and-set picks one, then it leases it.
    auto resumed = (*runs)->get(orphan.id);
    ASSERT_TRUE(resumed.ok());
    resumed->status = RunStatus::running;
    ASSERT_TRUE((*runs)->claim(*resumed, RunStatus::interrupted).ok());
    auto lease = (*second)->acquire(orphan.id);
    ASSERT_TRUE(lease.ok()) << lease.error().message;
    EXPECT_GT(lease->epoch, orphan_lease->epoch);

    // An elected instance that stops cleanly hands the election over at once.
    ASSERT_TRUE((*first)->retire_instance().ok());
    auto after = (*second)->sweep_expired();
    ASSERT_TRUE(after.ok()) << after.error().message;
    EXPECT_TRUE(after->elected);
    auto again = (*first)->sweep_expired();
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_FALSE(again->elected);
}

// The election is a lease, not a lock a connection keeps: an elected instance that stalls (SIGSTOP,
// a paused VM: its connection stays open) is replaced once its election expires, and when it wakes
// up it is no longer elected and interrupts nothing.
TEST_F(PostgresRunLeases, AStalledSweeperIsReplacedOnceItsElectionExpiresAndSweepsNothingWhenItWakes) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto location = db::StorageLocation::postgres(url);
    auto runs = RunStore::open(location);
    auto dead = RunLeases::open(location, "instance-dead", 1ms);
    auto stalled = RunLeases::open(location, "instance-stalled", 300ms);
    auto live = RunLeases::open(location, "instance-live", 60s);
    ASSERT_TRUE(runs.ok() && dead.ok() && stalled.ok() && live.ok());
    auto first = (*stalled)->sweep_expired();
    ASSERT_TRUE(first.ok()) << first.error().message;
    ASSERT_TRUE(first->elected);

    // A run of a dead instance, while the elected sweeper stalls (it sweeps no more, keeps its
    // connection): the live instance is elected once the stalled one's election expired, and
    // interrupts the run.
    const store::Run orphan = orphaned_run(**runs, **dead, "orphaned while the sweeper stalls");
    std::vector<std::string> interrupted;
    for (int i = 0; i < 3000 && interrupted.empty(); ++i) {
        auto swept = (*live)->sweep_expired();
        ASSERT_TRUE(swept.ok()) << swept.error().message;
        interrupted = swept->interrupted;
        if (interrupted.empty()) std::this_thread::sleep_for(20ms);
    }
    ASSERT_EQ(interrupted, std::vector<std::string>{orphan.id});
    EXPECT_EQ((*runs)->get(orphan.id)->status, RunStatus::interrupted);

    // Woken up, the stalled instance finds the election taken (the live one renews it at each
    // sweep) and sweeps nothing, though there is an expired run to sweep. The live instance sweeps
    // before that run is orphaned: otherwise it would (rightly) interrupt it itself.
    ASSERT_TRUE((*live)->sweep_expired()->elected);
    const store::Run second_orphan = orphaned_run(**runs, **dead, "orphaned later");
    std::this_thread::sleep_for(20ms);  // the dead instance's 1 ms lease on it expires
    auto woken = (*stalled)->sweep_expired();
    ASSERT_TRUE(woken.ok()) << woken.error().message;
    EXPECT_FALSE(woken->elected);
    EXPECT_TRUE(woken->interrupted.empty());
    EXPECT_EQ((*runs)->get(second_orphan.id)->status, RunStatus::running);
}

// A process stopped inside a transaction keeps its connection and its row locks. Here the elected
// sweeper stops between fencing itself (its election row locked FOR SHARE) and its commit: the
// server ends that idle transaction, so the next instance still takes the election over and sweeps.
TEST_F(PostgresRunLeases, ASweeperStoppedInsideItsTransactionLosesItsLocksAndTheElection) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto location = db::StorageLocation::postgres(url);
    auto runs = RunStore::open(location);
    auto dead = RunLeases::open(location, "instance-dead", 1ms);
    auto stalled = RunLeases::open(location, "instance-stalled", 200ms);
    auto live = RunLeases::open(location, "instance-live", 60s);
    ASSERT_TRUE(runs.ok() && dead.ok() && stalled.ok() && live.ok());
    ASSERT_TRUE((*stalled)->sweep_expired()->elected);
    // What the stopped process left: the same lock, on a connection of the host's, never committed.
    auto stopped = db::PgConnection::open(url);
    ASSERT_TRUE(stopped.ok()) << stopped.error().message;
    ASSERT_TRUE(stopped->exec("BEGIN").ok());
    auto locked = stopped->query("SELECT 1 FROM run_leases WHERE run_id = 'sweeper:leases' FOR SHARE");
    ASSERT_TRUE(locked.ok() && locked->rows() == 1);

    const store::Run orphan = orphaned_run(**runs, **dead, "orphaned while the sweeper is stopped");
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::string> interrupted;
    while (interrupted.empty() && std::chrono::steady_clock::now() - started < 60s) {
        auto swept = (*live)->sweep_expired();  // waits for the lock until the server ends its holder
        if (swept) interrupted = swept->interrupted;
        if (interrupted.empty()) std::this_thread::sleep_for(50ms);
    }
    ASSERT_EQ(interrupted, std::vector<std::string>{orphan.id});
    EXPECT_EQ((*runs)->get(orphan.id)->status, RunStatus::interrupted);
    // The stopped connection was ended by the server: continued, it cannot commit anything.
    EXPECT_FALSE(stopped->exec("COMMIT").ok());
    EXPECT_FALSE((*stalled)->sweep_expired()->elected);
}

TEST_F(PostgresRunLeases, AnInstanceIsAliveWhileItAnnouncesItselfAndGoneOnceItStopsOrLapses) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto location = db::StorageLocation::postgres(url);
    auto lapsing = RunLeases::open(location, "instance-lapsing", 1ms);
    auto steady = RunLeases::open(location, "instance-steady", 60s);
    auto observer = RunLeases::open(location, "instance-observer", 60s);
    ASSERT_TRUE(lapsing.ok() && steady.ok() && observer.ok());

    // Never announced: the observer cannot tell (a CLI process, or an older version).
    auto unknown = (*observer)->instance_alive("instance-steady");
    ASSERT_TRUE(unknown.ok()) << unknown.error().message;
    EXPECT_FALSE(unknown->has_value());

    ASSERT_TRUE((*steady)->announce_instance().ok());
    ASSERT_TRUE((*steady)->announce_instance().ok());  // extending is the same statement
    EXPECT_EQ((*observer)->instance_alive("instance-steady").value(), std::optional<bool>(true));

    // An announcement that is not renewed lapses (1 ms here): the instance counts as gone.
    ASSERT_TRUE((*lapsing)->announce_instance().ok());
    std::optional<bool> lapsed = true;
    for (int i = 0; i < 100 && lapsed == std::optional<bool>(true); ++i) {
        std::this_thread::sleep_for(10ms);
        lapsed = (*observer)->instance_alive("instance-lapsing").value();
    }
    EXPECT_EQ(lapsed, std::optional<bool>(false));
    // The sweep fences a lapsed announcement like any expired lease and interrupts no run for it;
    // the instance, if it was only stalled, announces itself again.
    auto swept = (*observer)->sweep_expired();
    ASSERT_TRUE(swept.ok()) << swept.error().message;
    EXPECT_TRUE(swept->interrupted.empty());
    EXPECT_EQ((*observer)->instance_alive("instance-lapsing").value(), std::optional<bool>(false));

    // A clean stop retires the announcement at once.
    ASSERT_TRUE((*steady)->retire_instance().ok());
    EXPECT_EQ((*observer)->instance_alive("instance-steady").value(), std::optional<bool>(false));
    ASSERT_TRUE((*steady)->announce_instance().ok());
    EXPECT_EQ((*observer)->instance_alive("instance-steady").value(), std::optional<bool>(true));
}

TEST_F(PostgresRunLeases, AnnouncementsOfInstancesDeadLongerThanTheBoundArePrunedAndNoOthers) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto location = db::StorageLocation::postgres(url);
    auto lapsing = RunLeases::open(location, "instance-lapsing", 1ms);
    auto retiring = RunLeases::open(location, "instance-retiring", 60s);
    auto steady = RunLeases::open(location, "instance-steady", 60s);
    ASSERT_TRUE(lapsing.ok() && retiring.ok() && steady.ok());
    ASSERT_TRUE((*lapsing)->announce_instance().ok());
    ASSERT_TRUE((*retiring)->announce_instance().ok());
    ASSERT_TRUE((*retiring)->retire_instance().ok());
    ASSERT_TRUE((*steady)->announce_instance().ok());
    auto lapsed = [&] { return (*steady)->instance_alive("instance-lapsing").value() == std::optional<bool>(false); };
    for (int i = 0; i < 1000 && !lapsed(); ++i) std::this_thread::sleep_for(10ms);
    ASSERT_TRUE(lapsed());
    // The sweep fences the lapsed announcement; it keeps the time it ended.
    ASSERT_TRUE((*steady)->sweep_expired().ok());

    // Dead, but not for an hour: every row stays, so their claims can still be judged.
    auto none = (*steady)->prune_instances(1h);
    ASSERT_TRUE(none.ok()) << none.error().message;
    EXPECT_EQ(*none, 0);
    EXPECT_EQ((*steady)->instance_alive("instance-lapsing").value(), std::optional<bool>(false));
    EXPECT_EQ((*steady)->instance_alive("instance-retiring").value(), std::optional<bool>(false));

    // Dead for longer than a short bound: both go, the live one stays.
    int pruned = 0;
    for (int i = 0; i < 1000 && pruned < 2; ++i) {
        auto now = (*steady)->prune_instances(5ms);
        ASSERT_TRUE(now.ok()) << now.error().message;
        pruned += *now;
        if (pruned < 2) std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(pruned, 2);
    EXPECT_EQ((*steady)->instance_alive("instance-lapsing").value(), std::nullopt);
    EXPECT_EQ((*steady)->instance_alive("instance-retiring").value(), std::nullopt);
    EXPECT_EQ((*steady)->instance_alive("instance-steady").value(), std::optional<bool>(true));
    // A pruned instance that was only stalled announces itself again.
    ASSERT_TRUE((*lapsing)->announce_instance().ok());
    EXPECT_NE((*steady)->instance_alive("instance-lapsing").value(), std::nullopt);
}

TEST(SingleInstanceRunLeases, AnnouncementsLeaveLivenessToTheProcessIdentity) {
    testing::TempDir home;
    auto leases = RunLeases::open(db::StorageLocation::sqlite(home.path() / "skillhost.db"), "self", 60s);
    ASSERT_TRUE(leases.ok()) << leases.error().message;
    EXPECT_TRUE((*leases)->announce_instance().ok());
    auto alive = (*leases)->instance_alive("self");
    ASSERT_TRUE(alive.ok());
    EXPECT_FALSE(alive->has_value());
}

}  // namespace
}  // namespace skillhost::store
