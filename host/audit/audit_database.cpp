#include "audit/audit_database.hpp"
#include "db/error_codes.hpp"
#include "audit/error_codes.hpp"

#include <boost/json/parse.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>

namespace skillhost::audit {
namespace {

// Rows read per query while paging backwards or catching up: bounds memory per call.
constexpr std::int64_t rows_per_read = 500;
// A sequence number a follower skipped (a concurrent writer had taken it but not committed yet) is
// looked for again on this many polls, then given up (its insert was rolled back).
constexpr int gap_polls = 50;
constexpr std::size_t max_gaps = 1000;

std::int64_t to_ms(TimePoint time) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

struct Row {
    std::int64_t seq = 0;
    boost::json::object record;
};

// The rows matching the columns we can filter on in SQL; the skill glob and the exact timestamp
// are checked by AuditFilter::matches on each record.
Result<std::vector<Row>> select_rows(db::BackendConnection& connection, const AuditFilter& filter,
                                     std::string_view where, std::vector<db::SqlValue> params, std::string_view order,
                                     std::vector<std::string>& problems) {
    std::string sql = "SELECT seq, record FROM audit_records WHERE (" + std::string(where) + ")";
    if (filter.kind) {
        sql += " AND kind = ?";
        params.emplace_back(*filter.kind);
    }
    if (filter.user) {
        sql += " AND user_id = ?";
        params.emplace_back(*filter.user);
    }
    if (filter.since) {
        sql += " AND ts_ms >= ?";
        params.emplace_back(to_ms(*filter.since));
    }
    sql += " ORDER BY seq " + std::string(order) + " LIMIT " + std::to_string(rows_per_read);
    auto rows = connection.run("reading the audit log", sql, params);
    if (!rows) return rows.error();
    std::vector<Row> out;
    out.reserve(rows->size());
    for (std::size_t i = 0; i < rows->size(); ++i) {
        const std::int64_t seq = rows->integer(i, 0);
        boost::system::error_code ec;
        auto value = boost::json::parse(rows->text(i, 1), ec);
        if (ec || !value.is_object()) {
            problems.push_back("audit_records seq " + std::to_string(seq) + ": not a JSON object");
            out.push_back({seq, {}});
            continue;
        }
        out.push_back({seq, std::move(value.as_object())});
    }
    return out;
}

Result<std::unique_ptr<db::BackendConnection>> open_table(const db::StorageLocation& location) {
    if (location.backend != db::StorageBackend::postgres) {
        return Error{errors::kAuditReadFailed,
                     "the audit_records table exists only on PostgreSQL; a SQLite home keeps its audit log in "
                     "day files",
                     {},
                     {}};
    }
    return db::BackendConnection::open(location);
}

Result<AuditPage> read_table_page(db::BackendConnection& connection, const AuditFilter& filter, std::size_t limit,
                                  const std::function<bool(const boost::json::object&)>& also) {
    AuditPage page;
    std::vector<boost::json::object> newest_first;
    std::int64_t before = std::numeric_limits<std::int64_t>::max();
    while (newest_first.size() < limit) {
        auto rows = select_rows(connection, filter, "seq < ?", {before}, "DESC", page.batch.problems);
        if (!rows) return rows.error();
        for (auto& row : *rows) {
            before = row.seq;
            if (row.record.empty() || !filter.matches(row.record) || (also && !also(row.record))) continue;
            newest_first.push_back(std::move(row.record));
            if (newest_first.size() == limit) break;
        }
        if (rows->size() < static_cast<std::size_t>(rows_per_read)) break;
    }
    page.more = newest_first.size() == limit && limit > 0;
    page.batch.records.assign(std::make_move_iterator(newest_first.rbegin()),
                              std::make_move_iterator(newest_first.rend()));
    return page;
}

class FileFollower final : public AuditFollower {
public:
    FileFollower(std::filesystem::path directory, AuditFilter filter)
        : tail_(std::move(directory), std::move(filter)) {}
    Result<AuditBatch> poll() override { return tail_.poll(); }

private:
    AuditTail tail_;
};

// Follows by sequence number. Concurrent writers may commit out of sequence order, so a number
// skipped by one poll is looked for again on the next ones (ids only, bounded).
class TableFollower final : public AuditFollower {
public:
    TableFollower(std::unique_ptr<db::BackendConnection> connection, AuditFilter filter)
        : connection_(std::move(connection)), filter_(std::move(filter)) {}

    Result<AuditBatch> poll() override {
        AuditBatch batch;
        if (!started_) {
            auto page = read_table_page(*connection_, filter_, audit_follow_backlog, {});
            if (!page) return page.error();
            auto newest =
                connection_->run("reading the audit log", "SELECT COALESCE(MAX(seq), 0) FROM audit_records", {});
            if (!newest) return newest.error();
            last_ = newest->integer(0, 0);
            started_ = true;
            return std::move(page->batch);
        }
        std::string where = "seq > ?";
        std::vector<db::SqlValue> params{last_};
        if (!gaps_.empty()) {
            std::string list = "{";
            for (const auto& [seq, polls] : gaps_) list += (list.size() > 1 ? "," : "") + std::to_string(seq);
            where += " OR seq = ANY(?::bigint[])";
            params.emplace_back(list + "}");
        }
        auto rows = select_rows(*connection_, filter_, where, std::move(params), "ASC", batch.problems);
        if (!rows) return rows.error();
        const std::int64_t before = last_;
        std::set<std::int64_t> seen;
        for (auto& row : *rows) {
            seen.insert(row.seq);
            gaps_.erase(row.seq);
            last_ = std::max(last_, row.seq);
            if (!row.record.empty() && filter_.matches(row.record)) batch.records.push_back(std::move(row.record));
        }
        // Filtered-out rows also count as seen: ask the table which numbers exist at all.
        if (last_ > before + static_cast<std::int64_t>(seen.size())) {
            auto present = connection_->run(
                "reading the audit log", "SELECT seq FROM audit_records WHERE seq > ? AND seq <= ?", {before, last_});
            if (!present) return present.error();
            for (std::size_t i = 0; i < present->size(); ++i) seen.insert(present->integer(i, 0));
            for (std::int64_t seq = before + 1; seq < last_ && gaps_.size() < max_gaps; ++seq) {
                if (!seen.count(seq)) gaps_.emplace(seq, 0);
            }
        }
        for (auto it = gaps_.begin(); it != gaps_.end();)
            it = ++it->second > gap_polls ? gaps_.erase(it) : std::next(it);
        return batch;
    }

private:
    std::unique_ptr<db::BackendConnection> connection_;
    AuditFilter filter_;
    bool started_ = false;
    std::int64_t last_ = 0;
    std::map<std::int64_t, int> gaps_;  // skipped sequence number -> polls it has been looked for
};

}  // namespace

struct DatabaseAuditSink::Waiting {
    std::int64_t ts_ms = 0;
    std::string kind;
    std::string user;
    std::string record;
    bool synchronous = false;  // gates an execution: committed with synchronous_commit on
    bool done = false;
    Status status;
};

Result<std::unique_ptr<DatabaseAuditSink>> DatabaseAuditSink::open(const db::StorageLocation& location,
                                                                   const AuditOptions& options,
                                                                   std::unique_ptr<AuditOutbox> outbox) {
    auto connection = open_table(location);
    if (!connection) return connection.error();
    std::unique_ptr<DatabaseAuditSink> sink(
        new DatabaseAuditSink(std::move(*connection), options.fsync == FsyncPolicy::always, std::move(outbox)));
    // What a killed daemon (or a database that stayed down) left: in the table before anything new.
    if (sink->outbox_ && !sink->outbox_->empty()) {
        if (auto drained = sink->drain_outbox(); drained && *drained > 0)
            spdlog::info("audit: {} record(s) kept in {} while the database could not be reached are now in it",
                         *drained, sink->outbox_->file().string());
    }
    return sink;
}

DatabaseAuditSink::DatabaseAuditSink(std::unique_ptr<db::BackendConnection> connection, bool synchronous,
                                     std::unique_ptr<AuditOutbox> outbox)
    : connection_(std::move(connection)), synchronous_(synchronous), outbox_(std::move(outbox)) {
    if (outbox_) retrier_ = std::thread([this] { retry_outbox(); });
}

DatabaseAuditSink::~DatabaseAuditSink() {
    {
        std::lock_guard lock(retry_mutex_);
        stopping_ = true;
    }
    retry_wake_.notify_all();
    if (retrier_.joinable()) retrier_.join();
}

void DatabaseAuditSink::retry_outbox() {
    auto last_warning = std::chrono::steady_clock::time_point{};
    std::unique_lock lock(retry_mutex_);
    while (!stopping_) {
        retry_wake_.wait_for(lock, std::chrono::seconds(1));
        if (stopping_) break;
        if (outbox_->empty()) continue;
        lock.unlock();
        auto drained = drain_outbox();
        if (drained && *drained > 0)
            spdlog::info("audit: {} record(s) kept in {} while the database could not be reached are now in it",
                         *drained, outbox_->file().string());
        // Unreachable is why they wait; anything else (a record the table refuses) needs a person,
        // said once a minute while it lasts.
        const auto now = std::chrono::steady_clock::now();
        if (!drained && !drained.error().is(errors::kDatabaseUnavailable) &&
            now - last_warning >= std::chrono::minutes(1)) {
            last_warning = now;
            spdlog::error(
                "audit: the records waiting in {} cannot be inserted: {}: {}; calls are refused once it is "
                "full",
                outbox_->file().string(), drained.error().code, drained.error().message);
        }
        lock.lock();
    }
}

Result<std::size_t> DatabaseAuditSink::drain_outbox() {
    if (!outbox_) return std::size_t{0};
    return outbox_->drain([this](const std::vector<OutboxRecord>& records) -> Status {
        // record_id is unique: a record inserted before a crash cut the drain short is not inserted
        // again. Committed synchronously: the outbox forgets them once this returns.
        std::string sql = "INSERT INTO audit_records (ts_ms, kind, user_id, record, record_id) VALUES ";
        std::vector<db::SqlValue> params;
        for (std::size_t i = 0; i < records.size(); ++i) {
            sql += i == 0 ? "(?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?)";
            params.emplace_back(records[i].ts_ms);
            params.emplace_back(records[i].kind);
            params.emplace_back(records[i].user.empty() ? db::SqlValue{} : db::SqlValue{records[i].user});
            params.emplace_back(records[i].record);
            params.emplace_back(records[i].id);
        }
        sql += " ON CONFLICT (record_id) DO NOTHING";
        sql += " RETURNING pg_catalog.set_config('synchronous_commit', 'on', true)";
        auto inserted = connection_->run("inserting the records of the audit outbox", sql, params);
        if (!inserted) return inserted.error();
        return {};
    });
}

Status DatabaseAuditSink::insert(const std::vector<std::shared_ptr<Waiting>>& batch) {
    // The durability is set per statement (set_config(..., true) lasts until its commit), since
    // the pooled connections serve any statement of this sink.
    std::string sql = "INSERT INTO audit_records (ts_ms, kind, user_id, record) VALUES ";
    std::vector<db::SqlValue> params;
    params.reserve(batch.size() * 4 + 1);
    bool synchronous = synchronous_;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        synchronous = synchronous || batch[i]->synchronous;
        sql += i == 0 ? "(?, ?, ?, ?)" : ", (?, ?, ?, ?)";
        const Waiting& row = *batch[i];
        params.emplace_back(row.ts_ms);
        params.emplace_back(row.kind);
        params.emplace_back(row.user.empty() ? db::SqlValue{} : db::SqlValue{row.user});
        params.emplace_back(row.record);
    }
    sql += " RETURNING pg_catalog.set_config('synchronous_commit', ?, true)";
    params.emplace_back(std::string(synchronous ? "on" : "off"));
    auto inserted = connection_->run("appending to the audit log", sql, params);
    if (!inserted) return inserted.error();
    return {};
}

Status DatabaseAuditSink::append(TimePoint at, std::string_view kind, std::string_view user,
                                 const std::string& record_json, bool gates_execution) {
    if (outbox_ && gates_execution && !outbox_->empty()) {
        // Records the database has not taken yet go first; an execution whose after-call record
        // the outbox could not keep does not start.
        (void)drain_outbox();
        if (outbox_->full_for_an_execution()) {
            Error error{errors::kAuditWriteFailed,
                        "the audit outbox " + outbox_->file().string() +
                            " is full of records the database has not taken yet; nothing runs until it takes them",
                        {},
                        {"check that the database server is up (GET /readyz); the records go to it by themselves "
                         "once it is"}};
            error.details["cause"] = "audit_outbox_full";
            return error;
        }
    }
    Status status = append_to_database(at, kind, user, record_json, gates_execution);
    if (status || gates_execution || !outbox_) return status;
    const auto* cause = status.error().details.if_contains("cause");
    if (!cause || !cause->is_string() || cause->as_string() != "database_unavailable") return status;
    // The server cannot be reached: the record waits in the outbox (durably) instead of being lost.
    // Said once per outage (when the outbox starts filling), not once per record.
    const bool first = outbox_->empty();
    if (auto kept = outbox_->append(
            OutboxRecord{AuditOutbox::new_id(), to_ms(at), std::string(kind), std::string(user), record_json});
        !kept)
        return kept;
    if (first)
        spdlog::warn("audit: records wait in {} until the database can be reached again ({})", outbox_->file().string(),
                     status.error().message);
    return {};
}

Status DatabaseAuditSink::append_to_database(TimePoint at, std::string_view kind, std::string_view user,
                                             const std::string& record_json, bool gates_execution) {
    auto mine = std::make_shared<Waiting>();
    mine->synchronous = gates_execution;
    mine->ts_ms = to_ms(at);
    mine->kind = std::string(kind);
    mine->user = std::string(user);
    mine->record = record_json;
    std::unique_lock lock(mutex_);
    queue_.push_back(mine);
    while (!mine->done) {
        if (inserting_) {
            written_.wait(lock);
            continue;
        }
        // This thread inserts what is waiting (its own record among the first max_batch, or the
        // batch ahead of it, then it loops for its own).
        inserting_ = true;
        std::vector<std::shared_ptr<Waiting>> batch;
        while (!queue_.empty() && batch.size() < max_batch) {
            batch.push_back(std::move(queue_.front()));
            queue_.pop_front();
        }
        lock.unlock();
        Status status = insert(batch);
        std::vector<Status> each;
        if (!status && batch.size() > 1 && !status.error().is(errors::kDatabaseUnavailable)) {
            // One bad record must not fail the others: each alone says which one it was.
            for (const auto& row : batch) each.push_back(insert({row}));
        }
        lock.lock();
        for (std::size_t i = 0; i < batch.size(); ++i) {
            batch[i]->status = each.empty() ? status : each[i];
            if (!batch[i]->status) {
                Error error = batch[i]->status.error();
                // An unreachable server is a cause of its own (503 like every AUDIT_WRITE_FAILED).
                if (error.is(errors::kDatabaseUnavailable)) error.details["cause"] = "database_unavailable";
                error.recode(errors::kAuditWriteFailed);
                batch[i]->status = std::move(error);
            }
            batch[i]->done = true;
        }
        inserting_ = false;
        written_.notify_all();
    }
    return mine->status;
}

Status DatabaseAuditSink::flush() {
    // One synchronous commit of a transaction that has an id flushes the WAL up to it, and so
    // every record committed before it with synchronous_commit off. One statement, so one
    // session: set_config(..., true) holds until that statement's own commit.
    auto flushed = connection_->run(
        "flushing the audit log",
        "SELECT pg_catalog.set_config('synchronous_commit', 'on', true), pg_catalog.txid_current()", {});
    if (!flushed) return flushed.error();
    return {};
}

Result<AuditPage> read_audit_page(const AuditSource& source, const AuditFilter& filter, std::size_t limit,
                                  const std::function<bool(const boost::json::object&)>& also) {
    if (!source.database) return read_audit_page(source.directory, filter, limit, also);
    auto connection = open_table(*source.database);
    if (!connection) return connection.error();
    return read_table_page(**connection, filter, limit, also);
}

Result<std::unique_ptr<AuditFollower>> AuditFollower::open(const AuditSource& source, AuditFilter filter) {
    if (!source.database) return std::unique_ptr<AuditFollower>(new FileFollower(source.directory, std::move(filter)));
    auto connection = open_table(*source.database);
    if (!connection) return connection.error();
    return std::unique_ptr<AuditFollower>(new TableFollower(std::move(*connection), std::move(filter)));
}

}  // namespace skillhost::audit
