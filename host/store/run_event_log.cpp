#include "store/run_event_log.hpp"
#include "store/error_codes.hpp"

#include "db/postgres_connection.hpp"
#include "db/postgres_schema.hpp"
#include "db/sqlite_connection.hpp"
#include "db/sqlite_schema.hpp"
#include "store/run_record.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <mutex>

namespace skillhost::store {
namespace {

// The next number is MAX(seq)+1 of the run, in the INSERT itself: SQLite's write lock serialises
// appends; PostgreSQL can see two appenders pick one number, and the primary key refuses the second.
constexpr const char* sqlite_append =
    "INSERT INTO run_events(run_id, seq, kind, payload, created_ms) "
    "SELECT ?1, COALESCE(MAX(seq), 0) + 1, ?2, ?3, ?4 FROM run_events WHERE run_id = ?1 RETURNING seq";
// The same statement notifies the other instances (delivered at commit, with only the run id):
// a stream of this run on another instance re-reads the log after its last number.
constexpr const char* postgres_append =
    "WITH appended AS (INSERT INTO run_events(run_id, seq, kind, payload, created_ms) "
    "SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4 FROM run_events WHERE run_id = $1 RETURNING seq) "
    "SELECT seq, pg_notify('skillhost_run_events', $1) FROM appended";  // db::run_events_channel
// The same, only while the run's lease still has the writer's epoch ($5). FOR SHARE: a takeover
// (an UPDATE of the lease row) waits for this append, or this append sees the raised epoch.
constexpr const char* postgres_fenced_append =
    "WITH fence AS (SELECT 1 FROM run_leases WHERE run_id = $1 AND epoch = $5 FOR SHARE), "
    "appended AS (INSERT INTO run_events(run_id, seq, kind, payload, created_ms) "
    "SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4 FROM run_events WHERE run_id = $1 "
    "HAVING EXISTS (SELECT 1 FROM fence) RETURNING seq) "
    "SELECT seq, pg_notify('skillhost_run_events', $1) FROM appended";
constexpr const char* select_after =
    "SELECT seq, kind, payload, created_ms FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3";

Error stale_writer_error(std::string_view run_id, std::int64_t epoch) {
    Error error{errors::kRunLeaseLost,
                "an event of run " + std::string(run_id) + " written under lease epoch " + std::to_string(epoch) +
                    " was refused: another instance took the run over and writes its events now",
                {},
                {}};
    error.details["run_id"] = std::string(run_id);
    error.details["epoch"] = epoch;
    return error;
}

class SqliteRunEventLog final : public RunEventLog {
public:
    explicit SqliteRunEventLog(db::SqliteConnection connection) : connection_(std::move(connection)) {}

    Result<std::int64_t> append(std::string_view run_id, std::string_view kind, std::string_view payload,
                                std::int64_t /*lease_epoch: one instance*/) override {
        if (payload.size() > max_run_event_payload_bytes) return event_too_large_error(run_id, payload.size());
        std::lock_guard lock(mutex_);
        db::SqliteStatement insert(connection_, sqlite_append);
        if (!insert.prepared()) return connection_.error("appending a run event");
        insert.bind(1, run_id).bind(2, kind).bind(3, payload).bind(4, unix_ms_now());
        if (insert.step() != SQLITE_ROW) return connection_.error("appending an event of run " + std::string(run_id));
        return insert.integer(0);
    }

    Result<std::vector<StoredRunEvent>> read(std::string_view run_id, std::int64_t after_seq,
                                             std::size_t limit) const override {
        std::lock_guard lock(mutex_);
        // SQLite accepts $N parameters too, so both backends read with one statement.
        db::SqliteStatement select(connection_, select_after);
        if (!select.prepared()) return connection_.error("reading run events");
        select.bind(1, run_id)
            .bind(2, after_seq)
            .bind(3, static_cast<std::int64_t>(std::min(limit, max_run_events_per_read)));
        std::vector<StoredRunEvent> events;
        int rc = 0;
        while ((rc = select.step()) == SQLITE_ROW)
            events.push_back(
                {std::string(run_id), select.integer(0), select.text(1), select.text(2), select.integer(3)});
        if (rc != SQLITE_DONE) return connection_.error("reading the events of run " + std::string(run_id));
        return events;
    }

private:
    mutable std::mutex mutex_;
    db::SqliteConnection connection_;
};

class PostgresRunEventLog final : public RunEventLog {
public:
    explicit PostgresRunEventLog(db::PgConnection connection) : connection_(std::move(connection)) {}

    Result<std::int64_t> append(std::string_view run_id, std::string_view kind, std::string_view payload,
                                std::int64_t lease_epoch) override {
        if (payload.size() > max_run_event_payload_bytes) return event_too_large_error(run_id, payload.size());
        std::lock_guard lock(mutex_);
        std::vector<db::PgParam> params = {std::string(run_id), std::string(kind), std::string(payload),
                                           std::to_string(unix_ms_now())};
        if (lease_epoch > 0) params.push_back(std::to_string(lease_epoch));
        // A lost race on the number is retried; each retry sees the winner's row. Bounded, because
        // only the instances appending to this one run at this moment can win against it.
        for (int attempt = 0;; ++attempt) {
            auto inserted = connection_.query(lease_epoch > 0 ? postgres_fenced_append : postgres_append, params);
            if (inserted && inserted->rows() == 0) return stale_writer_error(run_id, lease_epoch);
            if (inserted) return inserted->integer(0, 0);
            if (db::sqlstate_of(inserted.error()) != "23505" || attempt == 16) return inserted.error();
        }
    }

    Result<std::vector<StoredRunEvent>> read(std::string_view run_id, std::int64_t after_seq,
                                             std::size_t limit) const override {
        std::lock_guard lock(mutex_);
        auto rows = connection_.query(select_after, {std::string(run_id), std::to_string(after_seq),
                                                     std::to_string(std::min(limit, max_run_events_per_read))});
        if (!rows) return rows.error();
        std::vector<StoredRunEvent> events;
        for (int row = 0; row < rows->rows(); ++row)
            events.push_back({std::string(run_id), rows->integer(row, 0), rows->text(row, 1), rows->text(row, 2),
                              rows->integer(row, 3)});
        return events;
    }

private:
    mutable std::mutex mutex_;
    mutable db::PgConnection connection_;
};

}  // namespace

Result<std::unique_ptr<RunEventLog>> RunEventLog::open(const db::StorageLocation& location) {
    if (location.backend == db::StorageBackend::postgres) {
        auto connection = db::open_migrated_postgres(location.postgres_url);
        if (!connection) return connection.error();
        return std::unique_ptr<RunEventLog>(new PostgresRunEventLog(std::move(connection.value())));
    }
    auto connection = db::open_migrated_sqlite(location.sqlite_file);
    if (!connection) return connection.error();
    return std::unique_ptr<RunEventLog>(new SqliteRunEventLog(std::move(connection.value())));
}

Error event_too_large_error(std::string_view run_id, std::size_t bytes) {
    Error error{errors::kEventTooLarge,
                "an event of run " + std::string(run_id) + " has " + std::to_string(bytes) +
                    " bytes, more than the event log keeps (" + std::to_string(max_run_event_payload_bytes) + ")",
                {},
                {"the run's record keeps the full observation; the event should carry a summary of it"}};
    error.details["run_id"] = std::string(run_id);
    error.details["bytes"] = bytes;
    return error;
}

}  // namespace skillhost::store
