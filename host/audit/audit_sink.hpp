// Where AuditLog puts a finished record: timestamped, redacted and serialised, so every sink keeps
// the same fields. The JSONL day files are AuditLog's built-in default; a host on PostgreSQL hands
// it a DatabaseAuditSink, so every instance writes one shared, queryable log.
#pragma once

#include "base/error.hpp"
#include "base/utc_time.hpp"

#include <string>
#include <string_view>

namespace skillhost::audit {

class AuditSink {
public:
    virtual ~AuditSink() = default;
    // Stores one record (`record_json` is one JSON object, no newline); returns once it is as
    // durable as the sink's fsync policy promises, or, with `gates_execution` (the decision that
    // lets a call run), once it is on disk whatever the policy. Safe to call from several threads.
    virtual Status append(TimePoint at, std::string_view kind, std::string_view user, const std::string& record_json,
                          bool gates_execution = false) = 0;
    // Everything appended so far is durable when this returns.
    virtual Status flush() = 0;
};

}  // namespace skillhost::audit
