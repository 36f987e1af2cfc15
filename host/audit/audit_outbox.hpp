// Audit records the database could not take, kept in a file of the home until it can: on
// PostgreSQL a call that ran while the server died would otherwise lose its after-call record
// (skill_call, approval outcomes). One JSON object per line ({"id", "ts_ms", "kind", "user",
// "record"}), each appended on a line boundary and fdatasync'ed before append() returns; a torn
// tail (a write cut short by a kill or a full disk: never acknowledged) is cut off with a log line.
// drain() hands the whole records to the database and then empties the file; each record carries
// an id the table keeps unique, so a drain repeated after a crash between the insert and the
// truncation inserts nothing twice. Bounded: at most max_bytes (then append() is refused with
// AUDIT_WRITE_FAILED and the sink refuses new executions). Thread-safe, and safe between the
// processes of one home (the file is locked while it is appended to or drained).
#pragma once

#include "base/error.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace skillhost::audit {

struct OutboxRecord {
    std::string id;  // unique per record: the table ignores a second insert of it
    std::int64_t ts_ms = 0;
    std::string kind;
    std::string user;
    std::string record;  // the record's JSON, as the sink would have inserted it
};

// The room an execution needs in the outbox for its after-call record: with less, the sink
// refuses executions (audit first). True when an outbox of `bytes` (out of `max_bytes`) has less.
inline constexpr std::size_t outbox_room_for_an_after_call_record = 64 * 1024;
inline bool outbox_full_for_an_execution(std::uintmax_t bytes, std::size_t max_bytes) {
    return bytes + outbox_room_for_an_after_call_record > max_bytes;
}

class AuditOutbox {
public:
    static constexpr std::size_t default_max_bytes = 16 * 1024 * 1024;
    // Opens (creating) `file`, cutting off a torn tail. AUDIT_WRITE_FAILED when it cannot.
    static Result<std::unique_ptr<AuditOutbox>> open(std::filesystem::path file,
                                                     std::size_t max_bytes = default_max_bytes);
    ~AuditOutbox();
    AuditOutbox(const AuditOutbox&) = delete;
    AuditOutbox& operator=(const AuditOutbox&) = delete;

    // A new record id (random, 32 hex digits).
    static std::string new_id();
    // Durable when it returns. AUDIT_WRITE_FAILED when the outbox is full or the file cannot be
    // written (with details.cause as the audit log's: disk_full, read_only, permission).
    Status append(const OutboxRecord& record);
    // Hands every whole record to `deliver` in order (in batches of at most max_batch), then
    // empties the file. On an error of `deliver` the file is left as it is (records already
    // delivered are delivered again next time: `deliver` must ignore ids it has). Records that are
    // not valid JSON are skipped with a log line. How many records were delivered.
    Result<std::size_t> drain(const std::function<Status(const std::vector<OutboxRecord>&)>& deliver);
    // Whether records are waiting, and whether a record of `bytes` more would not fit.
    bool empty() const;
    bool full(std::size_t bytes = 1) const;
    // full(outbox_room_for_an_after_call_record)
    bool full_for_an_execution() const { return full(outbox_room_for_an_after_call_record); }
    const std::filesystem::path& file() const { return file_; }

    static constexpr std::size_t max_batch = 64;

private:
    AuditOutbox(std::filesystem::path file, int fd, std::size_t max_bytes)
        : file_(std::move(file)), fd_(fd), max_bytes_(max_bytes) {}
    std::int64_t size() const;
    Status cut_torn_tail();

    const std::filesystem::path file_;
    const int fd_;
    const std::size_t max_bytes_;
    mutable std::mutex mutex_;
};

}  // namespace skillhost::audit
