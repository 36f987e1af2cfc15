// The idempotency_keys table of either backend: the first answer to each Idempotency-Key of the
// HTTP API, so a client's retry is answered from here instead of acting again — after the daemon
// restarted, and on whichever instance of several on one PostgreSQL database it lands. A key is
// first claimed (in_progress, naming the process that answers it) before the request acts, then
// its answer is kept. What an answer looks like, and what a retry of a key still in progress gets,
// is the HTTP layer's business (server::IdempotentReplies); this is only where the rows live.
// Bounded: a row lives `ttl` from its claim, and at most `max_rows` live rows are kept (a claim
// beyond is refused with IDEMPOTENCY_KEYS_FULL). Thread-safe.
#pragma once

#include "base/error.hpp"
#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::store {

struct IdempotencyLimits {
    std::chrono::milliseconds ttl = std::chrono::hours(24);
    std::size_t max_rows = 100000;
};

// A key someone claimed before: what identifies its request, and its answer once there is one.
struct IdempotencyRow {
    std::string fingerprint;
    std::string owner;  // the process that claimed it
    std::int64_t created_ms = 0;
    std::optional<std::string> answer;  // empty while in progress
};

class IdempotencyRecords {
public:
    static Result<std::unique_ptr<IdempotencyRecords>> open(const db::StorageLocation& location,
                                                            IdempotencyLimits limits = {});
    IdempotencyRecords(std::unique_ptr<db::BackendConnection> connection, IdempotencyLimits limits)
        : connection_(std::move(connection)), limits_(limits) {}

    // Claims (scope, key) for `owner` (in progress): nullopt when this call claimed it, else the row
    // that was there (an expired one is forgotten first, and claimed anew). IDEMPOTENCY_KEYS_FULL
    // when max_rows live rows are kept; DATABASE_ERROR / DATABASE_UNAVAILABLE from storage.
    Result<std::optional<IdempotencyRow>> claim(std::string_view scope, std::string_view key,
                                                std::string_view fingerprint, std::string_view owner);
    // Keeps the answer of a key `owner` claimed. False when the row is not `owner`'s claim in
    // progress any more (it expired and was claimed again).
    Result<bool> keep_answer(std::string_view scope, std::string_view key, std::string_view owner,
                             std::string_view answer);
    // Forgets the claim of `owner` still in progress (its request did not act, or its answer says
    // "try again"), so the next request with the key runs.
    Status release(std::string_view scope, std::string_view key, std::string_view owner);
    // Deletes rows older than the ttl, at most max_pruned_per_call of them; how many went.
    Result<int> prune();
    static constexpr int max_pruned_per_call = 1000;

    const IdempotencyLimits& limits() const { return limits_; }

private:
    std::unique_ptr<db::BackendConnection> connection_;
    IdempotencyLimits limits_;
};

}  // namespace skillhost::store
