#include "store/postgres_run_store.hpp"

#include "db/postgres_connection.hpp"
#include "db/postgres_schema.hpp"

#include <boost/json/serialize.hpp>

#include <mutex>

namespace skillhost::store {
namespace {

class PostgresRunStore final : public RunStore {
public:
    PostgresRunStore(db::PgConnection connection, RunOwnership ownership)
        : connection_(std::move(connection)), ownership_(std::move(ownership)) {}

    Status save(Run& run) override;
    Status claim(Run& run, RunStatus expected) override;
    Result<std::vector<std::string>> mark_interrupted() override;
    Result<Run> get(std::string_view id) const override;
    Result<std::vector<Run>> list(const RunFilter& filter) const override;
    Result<std::map<std::string, std::uint64_t>> count_by_status() const override;

private:
    // This process as the owner of a running run, NULL otherwise.
    db::PgParam owner_of(const Run& run) const {
        if (run.status == RunStatus::running && !ownership_.self.empty()) return ownership_.self;
        return std::nullopt;
    }
    mutable std::mutex mutex_;
    mutable db::PgConnection connection_;
    RunOwnership ownership_;
};

Status PostgresRunStore::save(Run& run) {
    std::lock_guard lock(mutex_);
    run.updated_ms = unix_ms_now();
    if (run.created_ms == 0) run.created_ms = run.updated_ms;
    auto saved = connection_.query(
        "INSERT INTO runs(id, user_id, status, goal, created_ms, updated_ms, record, owner) "
        "VALUES($1,$2,$3,$4,$5,$6,$7,$8) "
        "ON CONFLICT(id) DO UPDATE SET status=excluded.status, updated_ms=excluded.updated_ms,"
        " record=excluded.record, owner=excluded.owner",
        {run.id, run.user_id, std::string(to_string(run.status)), run.goal, std::to_string(run.created_ms),
         std::to_string(run.updated_ms), boost::json::serialize(run.to_json()), owner_of(run)});
    if (!saved) return saved.error();
    return {};
}

Status PostgresRunStore::claim(Run& run, RunStatus expected) {
    std::lock_guard lock(mutex_);
    run.updated_ms = unix_ms_now();
    // One statement, committed on its own (autocommit): under READ COMMITTED a concurrent claimer
    // waits for this row lock, re-checks `status = expected` on the committed row and updates nothing.
    auto updated = connection_.query(
        "UPDATE runs SET status = $1, updated_ms = $2, record = $3, owner = $4 WHERE id = $5 AND status = $6",
        {std::string(to_string(run.status)), std::to_string(run.updated_ms), boost::json::serialize(run.to_json()),
         owner_of(run), run.id, std::string(to_string(expected))});
    if (!updated) return updated.error();
    if (updated->affected() == 1) return {};
    std::string found = "gone";
    if (auto status = connection_.query("SELECT status FROM runs WHERE id = $1", {run.id});
        status && status->rows() == 1)
        found = status->text(0, 0);
    return run_already_resumed_error(run, expected, found);
}

Result<std::vector<std::string>> PostgresRunStore::mark_interrupted() {
    std::lock_guard lock(mutex_);
    auto running =
        connection_.query("SELECT id, owner, record FROM runs WHERE status = 'running' AND owner IS NOT NULL");
    if (!running) return running.error();
    std::vector<std::string> marked;
    for (int row = 0; row < running->rows(); ++row) {
        const std::string id = running->text(row, 0);
        const std::string owner = running->text(row, 1);
        if (!owner_is_gone(ownership_, owner)) continue;
        auto parsed = parse_stored_run(running->text(row, 2), id);
        db::PgTransaction transaction(connection_);
        if (!transaction.begun()) return transaction.begun().error();
        // Compare-and-set on the owner too: an instance that re-claimed the run meanwhile keeps it.
        // A record that cannot be read is not running either: its status says so (get() reports
        // the record itself as RUN_RECORD_INVALID).
        Run run;
        run.id = id;
        auto updated = [&] {
            if (!parsed)
                return connection_.query(
                    "UPDATE runs SET status = 'interrupted', updated_ms = $1, owner = NULL "
                    "WHERE id = $2 AND status = 'running' AND owner = $3",
                    {std::to_string(unix_ms_now()), id, owner});
            run = interrupted_run(std::move(parsed.value()));
            return connection_.query(
                "UPDATE runs SET status = 'interrupted', updated_ms = $1, record = $2, owner = NULL "
                "WHERE id = $3 AND status = 'running' AND owner = $4",
                {std::to_string(run.updated_ms), boost::json::serialize(run.to_json()), run.id, owner});
        }();
        if (!updated) return updated.error();
        if (updated->affected() != 1) continue;
        // The dead process's lease goes with it, fenced as a sweep fences an expired one: resuming
        // the run need not wait out a lease nobody renews (a restarted daemon, `runs resume`).
        if (auto fenced = connection_.query("UPDATE run_leases SET owner = NULL, epoch = epoch + 1, expires_ms = 0 "
                                            "WHERE run_id = $1 AND owner = $2",
                                            {run.id, owner});
            !fenced)
            return fenced.error();
        if (auto committed = transaction.commit(); !committed) return committed.error();
        marked.push_back(run.id);
    }
    return marked;
}

Result<Run> PostgresRunStore::get(std::string_view id) const {
    std::lock_guard lock(mutex_);
    auto found = connection_.query("SELECT record FROM runs WHERE id = $1", {std::string(id)});
    if (!found) return found.error();
    if (found->rows() == 0) return run_not_found_error(id);
    return parse_stored_run(found->text(0, 0), id);
}

Result<std::vector<Run>> PostgresRunStore::list(const RunFilter& filter) const {
    std::lock_guard lock(mutex_);
    std::string sql =
        "SELECT record FROM runs WHERE ($1::text IS NULL OR user_id = $1) AND ($2::text IS NULL OR status = $2) "
        "ORDER BY created_ms DESC, row_order DESC";
    if (filter.limit > 0) sql += " LIMIT " + std::to_string(filter.limit);
    db::PgParam status;
    if (filter.status) status = std::string(to_string(*filter.status));
    auto rows = connection_.query(sql, {filter.user_id, status});
    if (!rows) return rows.error();
    std::vector<Run> runs;
    for (int row = 0; row < rows->rows(); ++row) {
        auto run = parse_stored_run(rows->text(row, 0), {});
        if (!run) return run.error();
        runs.push_back(std::move(run.value()));
    }
    return runs;
}

Result<std::map<std::string, std::uint64_t>> PostgresRunStore::count_by_status() const {
    std::lock_guard lock(mutex_);
    auto rows = connection_.query("SELECT status, COUNT(*) FROM runs GROUP BY status");
    if (!rows) return rows.error();
    std::map<std::string, std::uint64_t> counts;
    for (int row = 0; row < rows->rows(); ++row)
        counts[rows->text(row, 0)] = static_cast<std::uint64_t>(rows->integer(row, 1));
    return counts;
}

}  // namespace

Result<std::unique_ptr<RunStore>> open_postgres_run_store(const std::string& url, RunOwnership ownership) {
    auto connection = db::open_migrated_postgres(url);
    if (!connection) return connection.error();
    return std::unique_ptr<RunStore>(new PostgresRunStore(std::move(connection.value()), std::move(ownership)));
}

}  // namespace skillhost::store
