// The append-only audit trail: one JSON object per line in <home>/audit/YYYY-MM-DD.jsonl (UTC
// days). Every record has "ts" (UTC, millisecond precision) and "kind": decision, skill_call,
// approval, llm_call. Arguments are redacted (secret-looking keys) and large values truncated with
// their SHA-256; each record also carries args_sha256 so equal calls can be correlated.
// Thread-safe; several processes may append to the same day's file (each record is one write()
// on an O_APPEND descriptor). A record always starts on a line boundary: a tail left torn by a
// failed append or a killed writer is terminated (and logged) before the next record.
//
// Durability (AuditOptions::fsync) without a sync on the hot path: with `always`, a record's call
// returns once an fdatasync that began after its write() finished — concurrent writers share one
// sync (group commit); with `interval`, a background thread syncs what was written within
// fsync_interval, so no writer ever waits for the disk; `never` leaves it to the OS.
#pragma once

#include "auth/requester.hpp"
#include "base/error.hpp"
#include "audit/audit_options.hpp"
#include "audit/audit_sink.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace skillhost::audit {

// A policy decision as the audit trail keeps it; policy::record_decision fills it from a Decision.
// The views point into the caller's values and are read only during record_decision.
struct DecisionAudit {
    std::string_view user_id;
    std::string_view skill_id;
    std::string_view mode;
    std::string_view outcome;
    std::string_view step;
    std::string_view code;  // no name when allowed
    std::string_view reason;
    std::optional<std::string_view> rule;  // the text of the rule that decided or contributed, if any
    std::string_view rule_location;        // that rule's "file:line"
};

struct SkillCallAudit {
    std::string user_id;
    std::string skill_id;
    std::string call_id;
    auth::Requester requested_by;
    boost::json::value arguments;
    std::chrono::microseconds duration{0};
    bool ok = false;
    std::string error_code;  // when !ok
};

struct LlmCallAudit {
    std::string user_id;
    std::string run_id;
    std::string role;  // the model role, e.g. planner
    std::string backend;
    std::string model;
    std::chrono::microseconds duration{0};
    std::int64_t input_tokens = -1;  // -1: unknown
    std::int64_t output_tokens = -1;
    bool ok = false;
    std::string error_code;
    std::string sampled_by;  // "client": an MCP client answered (sampling/createMessage), not a model
};

class AuditLog {
public:
    static Result<std::unique_ptr<AuditLog>> open(const std::filesystem::path& directory, AuditOptions options = {});
    // Records go to `sink` (e.g. the audit_records table on PostgreSQL) instead of day files; the
    // sink keeps options.fsync's promise its own way.
    static Result<std::unique_ptr<AuditLog>> open(std::unique_ptr<AuditSink> sink, AuditOptions options = {});
    ~AuditLog();
    AuditLog(const AuditLog&) = delete;
    AuditLog& operator=(const AuditLog&) = delete;

    Status record_decision(const DecisionAudit& decision, const boost::json::value& args);
    Status record_skill_call(const SkillCallAudit& call);
    Status record_llm_call(const LlmCallAudit& call);

    // Appends {"ts":..., "kind": kind, ...fields}. Fields named arguments, details or result are
    // redacted and truncated; the rest are written as given (callers put no secrets there).
    Status append(std::string_view kind, boost::json::object fields);

    // fdatasync the current file (or flush the sink) now.
    Status flush();

    // The day files' directory; empty when records go to a sink.
    const std::filesystem::path& directory() const { return directory_; }
    // "2026-11-21.jsonl"
    static std::string file_name_for(TimePoint time);

private:
    AuditLog(std::filesystem::path directory, AuditOptions options);
    TimePoint now() const;
    // Hands a finished record (without its newline) to the sink or the day file, with the
    // configured durability.
    Status append_line(TimePoint at, std::string_view kind, std::string_view user, std::string line,
                       bool gates_execution = false);
    // Writes under the lock; returns the record's sequence number.
    Result<std::uint64_t> write_line(const std::string& line, TimePoint at);
    // Returns once every record up to `sequence` is synced (or the sync failed).
    Status sync_through(std::uint64_t sequence);
    // The file's last byte is not a newline: its last record was cut short.
    static bool ends_mid_line(int fd);
    void interval_syncs();

    std::mutex mutex_;
    std::condition_variable synced_;  // a sync finished, or the syncer thread should look
    std::filesystem::path directory_;
    AuditOptions options_;
    int fd_ = -1;
    std::string open_date_;
    std::chrono::sys_days open_day_{};  // the day open_date_ names
    std::uint64_t written_ = 0;         // records written so far
    std::uint64_t synced_through_ = 0;  // records known to be on disk (or given up on by a failed sync)
    std::uint64_t failed_through_ = 0;  // records a failed sync should have covered
    int failed_errno_ = 0;
    bool tail_may_be_torn_ = false;  // just opened, or an append failed: look at the last byte first
    bool syncing_ = false;           // a thread is in fdatasync outside the lock
    bool stopping_ = false;
    std::thread syncer_;               // FsyncPolicy::interval only
    std::unique_ptr<AuditSink> sink_;  // when set, no day files are written
};

}  // namespace skillhost::audit
