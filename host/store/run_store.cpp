#include "store/run_store.hpp"

#include <boost/json.hpp>
#include <sqlite3.h>

namespace skillhost::store {
namespace {

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS runs ("
    " id TEXT PRIMARY KEY, user_id TEXT NOT NULL, status TEXT NOT NULL, goal TEXT NOT NULL,"
    " created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL, record TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS runs_by_user ON runs(user_id, created_ms);"
    "CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status, created_ms);";

}  // namespace

Result<std::unique_ptr<RunStore>> RunStore::open(const std::filesystem::path& database_file) {
    auto connection = db::SqliteConnection::open(database_file);
    if (!connection) return connection.error();
    if (auto st = connection->exec(kSchema); !st) return st.error();
    return std::unique_ptr<RunStore>(new RunStore(std::move(connection.value())));
}

Status RunStore::save(Run& run) {
    std::lock_guard lock(mutex_);
    run.updated_ms = unix_ms_now();
    if (run.created_ms == 0) run.created_ms = run.updated_ms;
    db::SqliteStatement statement(
        connection_,
        "INSERT INTO runs(id, user_id, status, goal, created_ms, updated_ms, record) VALUES(?,?,?,?,?,?,?) "
        "ON CONFLICT(id) DO UPDATE SET status=excluded.status, updated_ms=excluded.updated_ms, record=excluded.record");
    if (!statement.prepared()) return connection_.error("preparing to save a run");
    statement.bind(1, run.id)
        .bind(2, run.user_id)
        .bind(3, std::string_view(to_string(run.status)))
        .bind(4, run.goal)
        .bind(5, run.created_ms)
        .bind(6, run.updated_ms)
        .bind(7, boost::json::serialize(run.to_json()));
    if (statement.step() != SQLITE_DONE) return connection_.error("saving run " + run.id);
    return {};
}

Result<Run> RunStore::get(std::string_view id) const {
    std::lock_guard lock(mutex_);
    db::SqliteStatement statement(connection_, "SELECT record FROM runs WHERE id = ?");
    if (!statement.prepared()) return connection_.error("preparing to read a run");
    statement.bind(1, id);
    const int rc = statement.step();
    if (rc == SQLITE_DONE) {
        Error error{"RUN_NOT_FOUND",
                    "there is no run '" + std::string(id) + "' — `skillhost runs list` shows the recent runs",
                    {},
                    {"Run `skillhost runs list` to see run ids"}};
        error.details["run_id"] = std::string(id);
        return error;
    }
    if (rc != SQLITE_ROW) return connection_.error("reading run " + std::string(id));
    boost::system::error_code ec;
    auto value = boost::json::parse(statement.text(0), ec);
    if (ec) {
        Error error{"RUN_RECORD_INVALID", "the stored record of run " + std::string(id) + " is not valid JSON", {}, {}};
        error.details["run_id"] = std::string(id);
        return error;
    }
    return Run::from_json(value);
}

Result<std::vector<Run>> RunStore::list(const RunFilter& filter) const {
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
        boost::system::error_code ec;
        auto value = boost::json::parse(statement.text(0), ec);
        if (ec) {
            return Error{
                "RUN_RECORD_INVALID", "a stored run record is not valid JSON; the database may be damaged", {}, {}};
        }
        auto run = Run::from_json(value);
        if (!run) return run.error();
        runs.push_back(std::move(run.value()));
    }
    return runs;
}

Result<std::map<std::string, std::uint64_t>> RunStore::count_by_status() const {
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
