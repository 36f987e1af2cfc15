// The append-only event log of each run: every event the operator emitted (thought, action,
// observation, ...) with a sequence number that counts 1, 2, 3, ... per run. It is what an event
// stream replays after `Last-Event-ID`, and with PostgreSQL what lets an instance stream a run that
// another instance executes. Events are stored as given (kind + JSON text); the store never
// interprets them. Implementations are thread-safe.
#pragma once

#include "base/error.hpp"
#include "db/storage_location.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::store {

struct StoredRunEvent {
    std::string run_id;
    std::int64_t seq = 0;  // 1-based, dense per run
    std::string kind;      // thought | action | observation | ...
    std::string payload;   // JSON text
    std::int64_t created_ms = 0;
};

// Limits so one run cannot fill the database or one read the memory.
inline constexpr std::size_t max_run_event_payload_bytes = 1 << 20;
inline constexpr std::size_t max_run_events_per_read = 1000;

class RunEventLog {
public:
    static Result<std::unique_ptr<RunEventLog>> open(const db::StorageLocation& location);
    virtual ~RunEventLog() = default;

    // Appends and returns the event's sequence number. EVENT_TOO_LARGE past
    // max_run_event_payload_bytes. Two instances appending to one run get distinct numbers.
    // `lease_epoch` (> 0: the event of a run driven under a lease) fences the append: on
    // PostgreSQL it is refused with RUN_LEASE_LOST, nothing written, once the run's lease has
    // another epoch (another instance took the run over). SQLite has one instance: not checked.
    virtual Result<std::int64_t> append(std::string_view run_id, std::string_view kind, std::string_view payload,
                                        std::int64_t lease_epoch = 0) = 0;
    // Events of `run_id` with seq > after_seq, oldest first, at most `limit` (capped at
    // max_run_events_per_read).
    virtual Result<std::vector<StoredRunEvent>> read(std::string_view run_id, std::int64_t after_seq,
                                                     std::size_t limit = max_run_events_per_read) const = 0;
};

Error event_too_large_error(std::string_view run_id, std::size_t bytes);

}  // namespace skillhost::store
