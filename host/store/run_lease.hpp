// Who executes a run when several daemons share one database. An instance holds a run's lease
// while it drives the run: an owner id, a fencing epoch and an expiry it extends by heartbeats.
// Every change of hands raises the epoch, so an instance that stalled past its expiry (or died)
// cannot write the run or claim a step any more once another instance took over. Claiming a step
// is a compare-and-set committed before the skill runs; no transaction stays open during a call.
// One elected instance sweeps expired leases: their runs become `interrupted`, which any
// instance may resume (RunStore::claim against `interrupted`).
// With SQLite there is one instance: leases are always granted and never expire.
// Instances also announce that they are alive (a lease named "instance:<id>" in the same table), so
// work an instance claimed outside a run (an approval's execution) can be recovered once it is gone.
#pragma once

#include "base/error.hpp"
#include "db/storage_location.hpp"
#include "store/run_record.hpp"
#include "store/run_store.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::store {

struct RunLease {
    std::string run_id;
    std::string owner;            // the instance id
    std::int64_t epoch = 0;       // fencing token: compared by every fenced write
    std::int64_t expires_ms = 0;  // database clock, unix ms
};

// A step claimed under a lease. `retry` is true when an earlier holder (a smaller epoch) had
// claimed the same step and may have run it: the call's idempotency key lets the plugin tell.
struct StepClaim {
    int step = 0;
    bool retry = false;
};

struct LeaseSweep {
    bool elected = false;                  // this instance holds the sweeper lock
    std::vector<std::string> interrupted;  // runs whose lease expired, now interrupted
};

class RunLeases {
public:
    // `instance_id` names this daemon (unique among those on the database); `ttl` is how long a
    // lease lasts without a heartbeat; `ownership` is what the SQLite run store records (its
    // save_fenced is a plain save). DATABASE_ERROR when the database cannot be used.
    static Result<std::unique_ptr<RunLeases>> open(const db::StorageLocation& location, std::string instance_id,
                                                   std::chrono::milliseconds ttl, RunOwnership ownership = {});
    virtual ~RunLeases() = default;

    // Takes the lease of `run_id` when nobody holds it or the holder's lease expired (raising the
    // epoch). RUN_LEASE_HELD (with the holder and its expiry) when another instance holds it.
    virtual Result<RunLease> acquire(std::string_view run_id) = 0;
    // Extends the lease by the ttl. RUN_LEASE_LOST when it changed hands (the caller must stop
    // driving the run without writing it).
    virtual Status heartbeat(RunLease& lease) = 0;
    // Claims step number `step` (0-based, increasing) before running it. RUN_LEASE_LOST when the
    // lease changed hands; STEP_ALREADY_CLAIMED when this epoch already claimed it or a later step.
    virtual Result<StepClaim> claim_step(const RunLease& lease, int step) = 0;
    // Stores `run` only while `lease` is current: RUN_LEASE_LOST otherwise (nothing written).
    virtual Status save_fenced(const RunLease& lease, Run& run) = 0;
    // Gives the lease up (the run finished or paused); a lease that changed hands is left alone.
    virtual Status release(const RunLease& lease) = 0;
    // When this instance is (or becomes) the elected sweeper: every running run whose lease
    // expired becomes interrupted and its lease is fenced off (epoch raised, no owner).
    virtual Result<LeaseSweep> sweep_expired() = 0;

    // Says this instance is alive for another ttl (taking its instance lease again when a sweep
    // fenced it after a stall). Called at least twice per ttl by a daemon.
    virtual Status announce_instance() = 0;
    // Ends this instance's announcement (a clean stop): work it claimed and never finished is
    // then known to be abandoned.
    virtual Status retire_instance() = 0;
    // Whether the instance `instance_id` announced itself and its announcement is current: true
    // (alive), false (it stopped, or its announcement expired), nullopt (it never announced itself:
    // a CLI process, or an older version; the caller falls back to what else it can tell).
    virtual Result<std::optional<bool>> instance_alive(std::string_view instance_id) = 0;
    // Deletes announcements that ended or expired more than `dead_for` ago (at most
    // max_pruned_per_call of them), so a database does not keep one row per daemon start forever.
    // The elected sweeper calls it after recovering what those instances claimed. How many went.
    virtual Result<int> prune_instances(std::chrono::milliseconds dead_for) = 0;
    static constexpr int max_pruned_per_call = 1000;
};

// The lease row that carries an instance's announcement.
std::string instance_lease_key(std::string_view instance_id);

Error run_lease_lost_error(const RunLease& lease, std::string_view why);
Error step_already_claimed_error(const RunLease& lease, int step, int claimed_step);

}  // namespace skillhost::store
