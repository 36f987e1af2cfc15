#include "store/idempotency_records.hpp"
#include "store/error_codes.hpp"

#include "store/run_record.hpp"

namespace skillhost::store {

Result<std::unique_ptr<IdempotencyRecords>> IdempotencyRecords::open(const db::StorageLocation& location,
                                                                     IdempotencyLimits limits) {
    auto connection = db::BackendConnection::open(location);
    if (!connection) return connection.error();
    return std::make_unique<IdempotencyRecords>(std::move(connection.value()), limits);
}

Result<std::optional<IdempotencyRow>> IdempotencyRecords::claim(std::string_view scope, std::string_view key,
                                                                std::string_view fingerprint, std::string_view owner) {
    const std::int64_t now = unix_ms_now();
    const std::int64_t cutoff = now - limits_.ttl.count();
    const std::string s(scope), k(key);
    // An expired row of this key no longer answers for it: the key is new again.
    if (auto gone = connection_->run(
            "forgetting an expired Idempotency-Key",
            "DELETE FROM idempotency_keys WHERE scope = ? AND request_key = ? AND created_ms < ?", {s, k, cutoff});
        !gone)
        return gone.error();
    // The row count is checked in the insert itself, so a full table never gains a row.
    auto inserted = connection_->run(
        "claiming an Idempotency-Key",
        "INSERT INTO idempotency_keys (scope, request_key, fingerprint, state, owner, created_ms)"
        " SELECT ?, ?, ?, 'in_progress', ?, CAST(? AS BIGINT)"
        " WHERE (SELECT COUNT(*) FROM idempotency_keys WHERE created_ms >= ?) < ?"
        " ON CONFLICT (scope, request_key) DO NOTHING",
        {s, k, std::string(fingerprint), std::string(owner), now, cutoff, static_cast<std::int64_t>(limits_.max_rows)});
    if (!inserted) return inserted.error();
    if (inserted->affected == 1) return std::optional<IdempotencyRow>();
    auto found = connection_->run("reading an Idempotency-Key",
                                  "SELECT fingerprint, owner, created_ms, state, answer FROM idempotency_keys"
                                  " WHERE scope = ? AND request_key = ?",
                                  {s, k});
    if (!found) return found.error();
    if (found->size() == 0) {
        Error error{errors::kIdempotencyKeysFull,
                    "the daemon keeps the answers of at most " + std::to_string(limits_.max_rows) +
                        " Idempotency-Keys (each for " + std::to_string(limits_.ttl.count() / 1000) +
                        " s), and that many are kept now; this request was not run",
                    {},
                    {"retry later, when older keys expire", "or send the request without an Idempotency-Key"}};
        error.details["max_rows"] = static_cast<std::int64_t>(limits_.max_rows);
        error.details["retry_after_ms"] = std::int64_t{60000};
        return error;
    }
    IdempotencyRow row;
    row.fingerprint = found->text(0, 0);
    row.owner = found->text(0, 1);
    row.created_ms = found->integer(0, 2);
    if (found->text(0, 3) == "answered") row.answer = found->text(0, 4);
    return std::optional<IdempotencyRow>(std::move(row));
}

Result<bool> IdempotencyRecords::keep_answer(std::string_view scope, std::string_view key, std::string_view owner,
                                             std::string_view answer) {
    auto updated = connection_->run(
        "keeping the answer to an Idempotency-Key",
        "UPDATE idempotency_keys SET state = 'answered', answer = ?, answered_ms = ?"
        " WHERE scope = ? AND request_key = ? AND owner = ? AND state = 'in_progress'",
        {std::string(answer), unix_ms_now(), std::string(scope), std::string(key), std::string(owner)});
    if (!updated) return updated.error();
    return updated->affected == 1;
}

Status IdempotencyRecords::release(std::string_view scope, std::string_view key, std::string_view owner) {
    auto deleted = connection_->run(
        "releasing an Idempotency-Key",
        "DELETE FROM idempotency_keys WHERE scope = ? AND request_key = ? AND owner = ? AND state = 'in_progress'",
        {std::string(scope), std::string(key), std::string(owner)});
    if (!deleted) return deleted.error();
    return {};
}

Result<int> IdempotencyRecords::prune() {
    const std::int64_t cutoff = unix_ms_now() - limits_.ttl.count();
    auto deleted = connection_->run("forgetting expired Idempotency-Keys",
                                    "DELETE FROM idempotency_keys WHERE (scope, request_key) IN"
                                    " (SELECT scope, request_key FROM idempotency_keys WHERE created_ms < ? LIMIT " +
                                        std::to_string(max_pruned_per_call) + ")",
                                    {cutoff});
    if (!deleted) return deleted.error();
    return static_cast<int>(deleted->affected);
}

}  // namespace skillhost::store
