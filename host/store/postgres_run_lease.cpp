#include "store/postgres_run_lease.hpp"
#include "store/error_codes.hpp"

#include "db/postgres_connection.hpp"
#include "db/postgres_schema.hpp"
#include "store/run_store.hpp"

#include <boost/json/serialize.hpp>

#include <cstdint>
#include <mutex>

namespace skillhost::store {
namespace {

// The database's clock in unix milliseconds: every instance compares expiries against the same one.
#define SKILLHOST_DB_NOW_MS "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint"

// The sweeper's election is a lease row like a run's: the elected instance renews it at every
// sweep; once it expires (its instance died, or stalls: SIGSTOP, a paused VM) the next instance to
// sweep takes it over with a raised epoch. A session advisory lock would stay with a stalled
// process, which keeps its connection, and hold every takeover hostage.
constexpr const char* sweeper_lease_key = "sweeper:leases";

// The most expired leases one sweep handles, so a sweep is a bounded transaction; the rest wait
// for the next one.
constexpr int max_leases_per_sweep = 100;

class PostgresRunLeases final : public RunLeases {
public:
    PostgresRunLeases(db::PgConnection connection, std::string instance_id, std::chrono::milliseconds ttl)
        : connection_(std::move(connection)),
          instance_id_(std::move(instance_id)),
          ttl_ms_(std::to_string(ttl.count())) {}

    Result<RunLease> acquire(std::string_view run_id) override;
    Status heartbeat(RunLease& lease) override;
    Result<StepClaim> claim_step(const RunLease& lease, int step) override;
    Status save_fenced(const RunLease& lease, Run& run) override;
    Status release(const RunLease& lease) override;
    Result<LeaseSweep> sweep_expired() override;
    Status announce_instance() override;
    Status retire_instance() override;
    Result<std::optional<bool>> instance_alive(std::string_view instance_id) override;
    Result<int> prune_instances(std::chrono::milliseconds dead_for) override;

private:
    // Why a lease-guarded statement touched nothing: the lease changed hands (lost) or not.
    Result<bool> lost(const RunLease& lease);
    Result<std::vector<std::string>> interrupt_expired_runs(std::int64_t sweeper_epoch);

    std::mutex mutex_;
    db::PgConnection connection_;
    std::string instance_id_;
    std::string ttl_ms_;
};

Result<RunLease> PostgresRunLeases::acquire(std::string_view run_id) {
    std::lock_guard lock(mutex_);
    const std::string id(run_id);
    auto taken = connection_.query(
        "INSERT INTO run_leases(run_id, owner, epoch, expires_ms) VALUES($1, $2, 1, " SKILLHOST_DB_NOW_MS
        " + $3) "
        "ON CONFLICT(run_id) DO UPDATE SET owner = excluded.owner, epoch = run_leases.epoch + 1,"
        " expires_ms = excluded.expires_ms "
        "WHERE run_leases.owner IS NULL OR run_leases.owner = excluded.owner OR run_leases.expires_ms "
        "< " SKILLHOST_DB_NOW_MS " RETURNING epoch, expires_ms",
        {id, instance_id_, ttl_ms_});
    if (!taken) return taken.error();
    if (taken->rows() == 1) return RunLease{id, instance_id_, taken->integer(0, 0), taken->integer(0, 1)};
    auto holder = connection_.query(
        "SELECT owner, expires_ms, expires_ms - " SKILLHOST_DB_NOW_MS " FROM run_leases WHERE run_id = $1", {id});
    if (!holder) return holder.error();
    const std::string owner = holder->rows() == 1 ? holder->text(0, 0) : "another instance";
    const std::int64_t left_ms = holder->rows() == 1 ? holder->integer(0, 2) : 0;
    Error error{errors::kRunLeaseHeld,
                "run " + id + " is being executed by instance " + owner + " (its lease runs for another " +
                    std::to_string(left_ms) + " ms); it can be resumed elsewhere only after that lease expires",
                {},
                {"follow it with `skillhost runs show " + id + "`"}};
    error.details["run_id"] = id;
    error.details["owner"] = owner;
    if (holder->rows() == 1) error.details["expires_ms"] = holder->integer(0, 1);
    return error;
}

Result<bool> PostgresRunLeases::lost(const RunLease& lease) {
    auto row = connection_.query("SELECT owner, epoch FROM run_leases WHERE run_id = $1", {lease.run_id});
    if (!row) return row.error();
    return row->rows() == 0 || row->text(0, 0) != lease.owner || row->integer(0, 1) != lease.epoch;
}

Status PostgresRunLeases::heartbeat(RunLease& lease) {
    std::lock_guard lock(mutex_);
    auto extended = connection_.query("UPDATE run_leases SET expires_ms = " SKILLHOST_DB_NOW_MS
                                      " + $4 WHERE run_id = $1 AND owner = $2 AND epoch = $3 RETURNING expires_ms",
                                      {lease.run_id, lease.owner, std::to_string(lease.epoch), ttl_ms_});
    if (!extended) return extended.error();
    if (extended->rows() == 0) return run_lease_lost_error(lease, "another instance took it over after it expired");
    lease.expires_ms = extended->integer(0, 0);
    return {};
}

Result<StepClaim> PostgresRunLeases::claim_step(const RunLease& lease, int step) {
    std::lock_guard lock(mutex_);
    // One statement committed on its own: the step is ours before the skill runs. A step claimed
    // under an older epoch may be claimed again (the instance that claimed it died mid-call).
    auto claimed = connection_.query(
        "WITH before AS (SELECT claimed_step FROM run_leases WHERE run_id = $1 FOR UPDATE) "
        "UPDATE run_leases SET claimed_step = $4, claimed_epoch = $3 FROM before "
        "WHERE run_leases.run_id = $1 AND owner = $2 AND epoch = $3 "
        "AND (run_leases.claimed_step < $4 OR (run_leases.claimed_step = $4 AND claimed_epoch < $3)) "
        "RETURNING before.claimed_step",
        {lease.run_id, lease.owner, std::to_string(lease.epoch), std::to_string(step)});
    if (!claimed) return claimed.error();
    if (claimed->rows() == 1) return StepClaim{step, claimed->integer(0, 0) == step};
    auto is_lost = lost(lease);
    if (!is_lost) return is_lost.error();
    if (*is_lost) return run_lease_lost_error(lease, "another instance took it over after it expired");
    auto row = connection_.query("SELECT claimed_step FROM run_leases WHERE run_id = $1", {lease.run_id});
    if (!row) return row.error();
    return step_already_claimed_error(lease, step, static_cast<int>(row->integer(0, 0)));
}

Status PostgresRunLeases::save_fenced(const RunLease& lease, Run& run) {
    std::lock_guard lock(mutex_);
    run.updated_ms = unix_ms_now();
    db::PgTransaction transaction(connection_);
    if (!transaction.begun()) return transaction.begun();
    // FOR SHARE: a concurrent acquire or sweep (an UPDATE of this row) waits until this write commits.
    auto holder = connection_.query("SELECT owner, epoch FROM run_leases WHERE run_id = $1 FOR SHARE", {lease.run_id});
    if (!holder) return holder.error();
    if (holder->rows() == 0 || holder->text(0, 0) != lease.owner || holder->integer(0, 1) != lease.epoch)
        return run_lease_lost_error(lease, "another instance took it over after it expired");
    db::PgParam owner;
    if (run.status == RunStatus::running) owner = lease.owner;
    auto updated =
        connection_.query("UPDATE runs SET status = $1, updated_ms = $2, record = $3, owner = $4 WHERE id = $5",
                          {std::string(to_string(run.status)), std::to_string(run.updated_ms),
                           boost::json::serialize(run.to_json()), owner, run.id});
    if (!updated) return updated.error();
    if (updated->affected() == 0) return run_not_found_error(run.id);
    return transaction.commit();
}

Status PostgresRunLeases::release(const RunLease& lease) {
    std::lock_guard lock(mutex_);
    auto released = connection_.query(
        "UPDATE run_leases SET owner = NULL, expires_ms = 0 WHERE run_id = $1 AND owner = $2 AND epoch = $3",
        {lease.run_id, lease.owner, std::to_string(lease.epoch)});
    if (!released) return released.error();
    return {};
}

Result<std::vector<std::string>> PostgresRunLeases::interrupt_expired_runs(std::int64_t sweeper_epoch) {
    db::PgTransaction transaction(connection_);
    if (!transaction.begun()) return transaction.begun().error();
    // Fenced like a run's writes: a sweeper that stalled past its election sweeps nothing more.
    auto still = connection_.query("SELECT 1 FROM run_leases WHERE run_id = $1 AND owner = $2 AND epoch = $3 FOR SHARE",
                                   {std::string(sweeper_lease_key), instance_id_, std::to_string(sweeper_epoch)});
    if (!still) return still.error();
    if (still->rows() == 0) return std::vector<std::string>();
    auto expired = connection_.query(
        "SELECT l.run_id, r.record, r.status FROM run_leases l LEFT JOIN runs r ON r.id = l.run_id "
        "WHERE l.owner IS NOT NULL AND l.run_id <> '" +
        std::string(sweeper_lease_key) + "' AND l.expires_ms < " SKILLHOST_DB_NOW_MS " ORDER BY l.expires_ms LIMIT " +
        std::to_string(max_leases_per_sweep) + " FOR UPDATE OF l SKIP LOCKED");
    if (!expired) return expired.error();
    std::vector<std::string> interrupted;
    for (int row = 0; row < expired->rows(); ++row) {
        const std::string id = expired->text(row, 0);
        // Raising the epoch fences the instance that held it: its next heartbeat, claim or write fails.
        // An instance's announcement keeps its expiry: how long it has been dead decides its pruning.
        if (auto fenced = connection_.query(
                "UPDATE run_leases SET owner = NULL, epoch = epoch + 1, expires_ms = CASE WHEN run_id LIKE "
                "'instance:%' THEN expires_ms ELSE 0 END WHERE run_id = $1",
                {id});
            !fenced)
            return fenced.error();
        if (expired->text(row, 2) != to_string(RunStatus::running)) continue;  // it ended without releasing
        auto parsed = parse_stored_run(expired->text(row, 1), id);
        if (!parsed) continue;  // get() reports such a record as RUN_RECORD_INVALID
        Run run = interrupted_run(std::move(parsed.value()));
        auto updated = connection_.query(
            "UPDATE runs SET status = 'interrupted', updated_ms = $1, record = $2, owner = NULL "
            "WHERE id = $3 AND status = 'running'",
            {std::to_string(run.updated_ms), boost::json::serialize(run.to_json()), id});
        if (!updated) return updated.error();
        if (updated->affected() == 1) interrupted.push_back(id);
    }
    if (auto st = transaction.commit(); !st) return st.error();
    return interrupted;
}

Result<LeaseSweep> PostgresRunLeases::sweep_expired() {
    std::lock_guard lock(mutex_);
    // Renewed by its holder, or taken over (epoch raised) once it expired or was given up: one
    // compare-and-set, committed on its own.
    auto won = connection_.query(
        "INSERT INTO run_leases(run_id, owner, epoch, expires_ms) VALUES($1, $2, 1, " SKILLHOST_DB_NOW_MS
        " + $3) ON CONFLICT(run_id) DO UPDATE SET owner = excluded.owner, expires_ms = excluded.expires_ms,"
        " epoch = CASE WHEN run_leases.owner = excluded.owner THEN run_leases.epoch ELSE run_leases.epoch + 1 END "
        "WHERE run_leases.owner IS NULL OR run_leases.owner = excluded.owner OR run_leases.expires_ms "
        "< " SKILLHOST_DB_NOW_MS " RETURNING epoch",
        {std::string(sweeper_lease_key), instance_id_, ttl_ms_});
    if (!won) return won.error();
    if (won->rows() == 0) return LeaseSweep{};
    auto interrupted = interrupt_expired_runs(won->integer(0, 0));
    if (!interrupted) return interrupted.error();
    return LeaseSweep{true, std::move(interrupted.value())};
}

Status PostgresRunLeases::announce_instance() {
    std::lock_guard lock(mutex_);
    // Taken or extended in one statement: a sweep that fenced a stalled instance's announcement
    // (owner NULL) lets it announce itself again at once.
    auto announced = connection_.query(
        "INSERT INTO run_leases(run_id, owner, epoch, expires_ms) VALUES($1, $2, 1, " SKILLHOST_DB_NOW_MS
        " + $3) ON CONFLICT(run_id) DO UPDATE SET owner = excluded.owner, expires_ms = excluded.expires_ms,"
        " epoch = CASE WHEN run_leases.owner IS NULL THEN run_leases.epoch + 1 ELSE run_leases.epoch END",
        {instance_lease_key(instance_id_), instance_id_, ttl_ms_});
    if (!announced) return announced.error();
    return {};
}

Status PostgresRunLeases::retire_instance() {
    std::lock_guard lock(mutex_);
    // Ended now: pruned once it has been over for as long as an expired one.
    auto retired = connection_.query(
        "UPDATE run_leases SET owner = NULL, expires_ms = LEAST(expires_ms, " SKILLHOST_DB_NOW_MS ") WHERE run_id = $1",
        {instance_lease_key(instance_id_)});
    if (!retired) return retired.error();
    // A stopping sweeper hands its election over at once rather than when it expires.
    auto handed =
        connection_.query("UPDATE run_leases SET owner = NULL, expires_ms = 0 WHERE run_id = $1 AND owner = $2",
                          {std::string(sweeper_lease_key), instance_id_});
    if (!handed) return handed.error();
    return {};
}

Result<std::optional<bool>> PostgresRunLeases::instance_alive(std::string_view instance_id) {
    std::lock_guard lock(mutex_);
    auto row = connection_.query("SELECT owner IS NOT NULL AND expires_ms >= " SKILLHOST_DB_NOW_MS
                                 " FROM run_leases WHERE run_id = $1",
                                 {instance_lease_key(instance_id)});
    if (!row) return row.error();
    if (row->rows() == 0) return std::optional<bool>();
    return std::optional<bool>(row->text(0, 0) == "t");
}

Result<int> PostgresRunLeases::prune_instances(std::chrono::milliseconds dead_for) {
    std::lock_guard lock(mutex_);
    // Retired and fenced announcements keep the time they ended in expires_ms.
    auto pruned = connection_.query(
        "DELETE FROM run_leases WHERE run_id IN (SELECT run_id FROM run_leases WHERE run_id LIKE 'instance:%' "
        "AND expires_ms < " SKILLHOST_DB_NOW_MS " - $1 LIMIT " +
            std::to_string(max_pruned_per_call) + ")",
        {std::to_string(dead_for.count())});
    if (!pruned) return pruned.error();
    return static_cast<int>(pruned->affected());
}

}  // namespace

Result<std::unique_ptr<RunLeases>> open_postgres_run_leases(const std::string& url, std::string instance_id,
                                                            std::chrono::milliseconds ttl) {
    auto connection = db::open_migrated_postgres(url);
    if (!connection) return connection.error();
    return std::unique_ptr<RunLeases>(
        new PostgresRunLeases(std::move(connection.value()), std::move(instance_id), ttl));
}

}  // namespace skillhost::store
