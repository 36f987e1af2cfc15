// The audit log in the audit_records table, for hosts on PostgreSQL: every instance appends to and
// reads one log. Each row keeps the record exactly as the day files would (the same fields and
// redaction: AuditLog builds it), with its time, kind and user beside it for filtering.
// SQLite homes keep the JSONL day files; AuditSource lets `audit` and /v1/audit read either.
#pragma once

#include "base/error.hpp"
#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"
#include "policy/audit_options.hpp"
#include "policy/audit_reader.hpp"
#include "policy/audit_sink.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>

namespace skillhost::policy {

// Durability as AuditOptions::fsync asks, the database's way: `always` commits each record with
// synchronous_commit on (acknowledged = flushed to the WAL on disk); `interval` and `never` commit
// with synchronous_commit off, so no writer waits for the disk and PostgreSQL's WAL writer flushes
// within three wal_writer_delay (600 ms by default); a server crash may lose that window, as a
// power cut may lose an unsynced day file.
class DatabaseAuditSink final : public AuditSink {
public:
    static Result<std::unique_ptr<DatabaseAuditSink>> open(const db::StorageLocation& location,
                                                           const AuditOptions& options);
    Status append(TimePoint at, std::string_view kind, std::string_view user, const std::string& record_json) override;
    Status flush() override;

private:
    explicit DatabaseAuditSink(std::unique_ptr<db::BackendConnection> connection)
        : connection_(std::move(connection)) {}
    std::unique_ptr<db::BackendConnection> connection_;
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

}  // namespace skillhost::policy
