#include "store/sqlite_run_store.hpp"

#include "db/sqlite_connection.hpp"
#include "db/sqlite_schema.hpp"

#include <boost/json.hpp>
#include <sqlite3.h>

#include <mutex>

namespace skillhost::store {

namespace {

class SqliteRunStore final : public RunStore {
public:
    SqliteRunStore(db::SqliteConnection connection, RunOwnership ownership)
        : connection_(std::move(connection)), ownership_(std::move(ownership)) {}

    Status save(Run& run) override;
    Status claim(Run& run, RunStatus expected) override;
    Result<std::vector<std::string>> mark_interrupted() override;
    Result<Run> get(std::string_view id) const override;
    Result<std::vector<Run>> list(const RunFilter& filter) const override;
    Result<std::map<std::string, std::uint64_t>> count_by_status() const override;

private:
    // Binds this process as the owner of a running run, NULL otherwise.
    void bind_owner(db::SqliteStatement& statement, int index, const Run& run) const;
    mutable std::mutex mutex_;
    db::SqliteConnection connection_;
    RunOwnership ownership_;
};

}  // namespace

Result<std::unique_ptr<RunStore>> open_sqlite_run_store(const std::filesystem::path& database_file,
                                                        RunOwnership ownership) {
    auto connection = db::open_migrated_sqlite(database_file);
    if (!connection) return connection.error();
    return std::unique_ptr<RunStore>(new SqliteRunStore(std::move(connection.value()), std::move(ownership)));
}

void SqliteRunStore::bind_owner(db::SqliteStatement& statement, int index, const Run& run) const {
    if (run.status == RunStatus::running && !ownership_.self.empty())
        statement.bind(index, ownership_.self);
    else
        statement.bind_null(index);
}

Status SqliteRunStore::save(Run& run) {
    std::lock_guard lock(mutex_);
    run.updated_ms = unix_ms_now();
    if (run.created_ms == 0) run.created_ms = run.updated_ms;
    db::SqliteStatement statement(
        connection_,
        "INSERT INTO runs(id, user_id, status, goal, created_ms, updated_ms, record, owner) VALUES(?,?,?,?,?,?,?,?) "
        "ON CONFLICT(id) DO UPDATE SET status=excluded.status, updated_ms=excluded.updated_ms, record=excluded.record,"
        " owner=excluded.owner");
    if (!statement.prepared()) return connection_.error("preparing to save a run");
    statement.bind(1, run.id)
        .bind(2, run.user_id)
        .bind(3, std::string_view(to_string(run.status)))
        .bind(4, run.goal)
        .bind(5, run.created_ms)
        .bind(6, run.updated_ms)
        .bind(7, boost::json::serialize(run.to_json()));
    bind_owner(statement, 8, run);
    if (statement.step() != SQLITE_DONE) return connection_.error("saving run " + run.id);
    return {};
}

Status SqliteRunStore::claim(Run& run, RunStatus expected) {
    std::lock_guard lock(mutex_);
    run.updated_ms = unix_ms_now();
    db::SqliteStatement update(connection_,
                               "UPDATE runs SET status = ?, updated_ms = ?, record = ?, owner = ? "
                               "WHERE id = ? AND status = ?");
    if (!update.prepared()) return connection_.error("preparing to resume a run");
    update.bind(1, std::string_view(to_string(run.status)))
        .bind(2, run.updated_ms)
        .bind(3, boost::json::serialize(run.to_json()));
    bind_owner(update, 4, run);
    update.bind(5, run.id).bind(6, std::string_view(to_string(expected)));
    if (update.step() != SQLITE_DONE) return connection_.error("resuming run " + run.id);
    if (sqlite3_changes(connection_.handle()) == 1) return {};
    std::string found = "gone";
    db::SqliteStatement select(connection_, "SELECT status FROM runs WHERE id = ?");
    if (select.prepared()) {
        select.bind(1, run.id);
        if (select.step() == SQLITE_ROW) found = select.text(0);
    }
    return run_already_resumed_error(run, expected, found);
}

Result<std::vector<std::string>> SqliteRunStore::mark_interrupted() {
    std::lock_guard lock(mutex_);
    struct Orphan {
        std::string id, owner, record;
    };
    std::vector<Orphan> orphans;
    {
        db::SqliteStatement select(connection_,
                                   "SELECT id, owner, record FROM runs WHERE status = 'running' AND owner IS NOT NULL");
        if (!select.prepared()) return connection_.error("looking for interrupted runs");
        int rc = 0;
        while ((rc = select.step()) == SQLITE_ROW) {
            Orphan o{select.text(0), select.text(1), select.text(2)};
            if (!owner_is_gone(ownership_, o.owner)) continue;
            orphans.push_back(std::move(o));
        }
        if (rc != SQLITE_DONE) return connection_.error("looking for interrupted runs");
    }
    std::vector<std::string> marked;
    for (auto& orphan : orphans) {
        auto parsed = parse_stored_run(orphan.record, orphan.id);
        if (!parsed) {
            // Whatever was stored of it, it is not running any more: its status says so, and get()
            // reports the record itself as RUN_RECORD_INVALID.
            db::SqliteStatement update(connection_,
                                       "UPDATE runs SET status = 'interrupted', updated_ms = ?, owner = NULL "
                                       "WHERE id = ? AND status = 'running' AND owner = ?");
            if (!update.prepared()) return connection_.error("marking a run interrupted");
            update.bind(1, unix_ms_now()).bind(2, orphan.id).bind(3, orphan.owner);
            if (update.step() != SQLITE_DONE) return connection_.error("marking run " + orphan.id + " interrupted");
            if (sqlite3_changes(connection_.handle()) == 1) marked.push_back(orphan.id);
            continue;
        }
        Run run = interrupted_run(std::move(parsed.value()));
        db::SqliteStatement update(connection_,
                                   "UPDATE runs SET status = 'interrupted', updated_ms = ?, record = ?, owner = NULL "
                                   "WHERE id = ? AND status = 'running' AND owner = ?");
        if (!update.prepared()) return connection_.error("marking a run interrupted");
        update.bind(1, run.updated_ms)
            .bind(2, boost::json::serialize(run.to_json()))
            .bind(3, run.id)
            .bind(4, orphan.owner);
        if (update.step() != SQLITE_DONE) return connection_.error("marking run " + run.id + " interrupted");
        if (sqlite3_changes(connection_.handle()) == 1) marked.push_back(run.id);
    }
    return marked;
}

Result<Run> SqliteRunStore::get(std::string_view id) const {
    std::lock_guard lock(mutex_);
    db::SqliteStatement statement(connection_, "SELECT record FROM runs WHERE id = ?");
    if (!statement.prepared()) return connection_.error("preparing to read a run");
    statement.bind(1, id);
    const int rc = statement.step();
    if (rc == SQLITE_DONE) return run_not_found_error(id);
    if (rc != SQLITE_ROW) return connection_.error("reading run " + std::string(id));
    return parse_stored_run(statement.text(0), id);
}

Result<std::vector<Run>> SqliteRunStore::list(const RunFilter& filter) const {
    std::lock_guard lock(mutex_);
    std::string sql =
        "SELECT record FROM runs WHERE (?1 IS NULL OR user_id = ?1) AND (?2 IS NULL OR status = ?2) "
        "ORDER BY created_ms DESC, rowid DESC";
    if (filter.limit > 0) sql += " LIMIT " + std::to_string(filter.limit);
    db::SqliteStatement statement(connection_, sql);
    if (!statement.prepared()) return connection_.error("preparing to list runs");
    if (filter.user_id)
        statement.bind(1, *filter.user_id);
    else
        statement.bind_null(1);
    if (filter.status)
        statement.bind(2, std::string_view(to_string(*filter.status)));
    else
        statement.bind_null(2);
    std::vector<Run> runs;
    for (int rc = statement.step(); rc != SQLITE_DONE; rc = statement.step()) {
        if (rc != SQLITE_ROW) return connection_.error("listing runs");
        auto run = parse_stored_run(statement.text(0), {});
        if (!run) return run.error();
        runs.push_back(std::move(run.value()));
    }
    return runs;
}

Result<std::map<std::string, std::uint64_t>> SqliteRunStore::count_by_status() const {
    std::lock_guard lock(mutex_);
    db::SqliteStatement statement(connection_, "SELECT status, COUNT(*) FROM runs GROUP BY status");
    if (!statement.prepared()) return connection_.error("counting runs");
    std::map<std::string, std::uint64_t> counts;
    for (int rc = statement.step(); rc != SQLITE_DONE; rc = statement.step()) {
        if (rc != SQLITE_ROW) return connection_.error("counting runs");
        counts[statement.text(0)] = static_cast<std::uint64_t>(statement.integer(1));
    }
    return counts;
}

}  // namespace skillhost::store
