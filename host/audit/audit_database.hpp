// The audit log in the audit_records table, for hosts on PostgreSQL: every instance appends to and
// reads one log. Each row keeps the record exactly as the day files would (the same fields and
// redaction: AuditLog builds it), with its time, kind and user beside it for filtering.
// SQLite homes keep the JSONL day files; AuditSource lets `audit` and /v1/audit read either.
#pragma once

#include "base/error.hpp"
#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"
#include "audit/audit_options.hpp"
#include "audit/audit_outbox.hpp"
#include "audit/audit_reader.hpp"
#include "audit/audit_sink.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace skillhost::audit {

// Durability as AuditOptions::fsync asks, the database's way: `always` commits each record with
// synchronous_commit on (acknowledged = flushed to the WAL on disk); `interval` and `never` commit
// with synchronous_commit off, so no writer waits for the disk and PostgreSQL's WAL writer flushes
// within three wal_writer_delay (600 ms by default); a server crash may lose that window, as a
// power cut may lose an unsynced day file. A record that gates an execution (a call's decision) is
// committed with synchronous_commit on whatever the policy: a call never runs on a decision a
// database crash could take back. Its batch commits synchronously with it.
//
// Group commit: records appended while another thread's insert is under way are inserted together
// by the next one (one statement, one round trip, up to max_batch rows), so concurrent requests do
// not queue for a round trip each. append() still returns only once its own record is committed.
//
// With an outbox (AuditOutbox, a file of the home): a record that does not gate an execution (a
// call's after-call skill_call, an approval's outcome) and cannot be inserted because the server
// cannot be reached is kept there instead — durably — and inserted once the server is back (a
// background thread retries every second while it holds records; open() tries at once, for what a
// killed daemon left). A record that gates an execution is refused (AUDIT_WRITE_FAILED) while the
// outbox could not take that execution's after-call record: audit first, always.
class DatabaseAuditSink final : public AuditSink {
public:
    static Result<std::unique_ptr<DatabaseAuditSink>> open(const db::StorageLocation& location,
                                                           const AuditOptions& options,
                                                           std::unique_ptr<AuditOutbox> outbox = nullptr);
    ~DatabaseAuditSink() override;
    Status append(TimePoint at, std::string_view kind, std::string_view user, const std::string& record_json,
                  bool gates_execution = false) override;
    Status flush() override;
    // Inserts what the outbox holds (each record once, whatever was inserted of it before); how many.
    Result<std::size_t> drain_outbox();

    // Rows one insert carries at most; appends waiting beyond it go in the next insert.
    static constexpr std::size_t max_batch = 64;

private:
    struct Waiting;
    DatabaseAuditSink(std::unique_ptr<db::BackendConnection> connection, bool synchronous,
                      std::unique_ptr<AuditOutbox> outbox);
    Status insert(const std::vector<std::shared_ptr<Waiting>>& batch);
    Status append_to_database(TimePoint at, std::string_view kind, std::string_view user,
                              const std::string& record_json, bool gates_execution);
    void retry_outbox();
    std::unique_ptr<db::BackendConnection> connection_;
    const bool synchronous_;  // synchronous_commit on for each insert
    std::mutex mutex_;
    std::condition_variable written_;
    std::deque<std::shared_ptr<Waiting>> queue_;  // at most one entry per appending thread
    bool inserting_ = false;                      // a thread is inserting a batch
    std::unique_ptr<AuditOutbox> outbox_;
    std::mutex retry_mutex_;
    std::condition_variable retry_wake_;
    bool stopping_ = false;
    std::thread retrier_;  // while the outbox holds records: drains it every second
};

// Where the audit log of a host is read: its day files, or the table when `database` is set.
struct AuditSource {
    std::filesystem::path directory;
    std::optional<db::StorageLocation> database;  // PostgreSQL
};

// read_audit_page() of either source: the newest `limit` matching records, oldest first.
Result<AuditPage> read_audit_page(const AuditSource& source, const AuditFilter& filter, std::size_t limit,
                                  const std::function<bool(const boost::json::object&)>& also = {});

// AuditTail of either source: the first poll() returns the matching records (of the table: the
// newest audit_follow_backlog of them), later polls what was appended since.
class AuditFollower {
public:
    static Result<std::unique_ptr<AuditFollower>> open(const AuditSource& source, AuditFilter filter);
    virtual ~AuditFollower() = default;
    virtual Result<AuditBatch> poll() = 0;
};

inline constexpr std::size_t audit_follow_backlog = 1000;

}  // namespace skillhost::audit
