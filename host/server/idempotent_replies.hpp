// The first answer to each Idempotency-Key, so a client that retries after a timeout (or a lost
// connection) gets that answer again instead of a second effect. The answers live in the host's
// storage (store::IdempotencyRecords), so a retry after a restart, or one a load balancer sends to
// another instance on the same PostgreSQL database, replays them too. Keys are scoped by user and
// endpoint; the same key with a different request body is refused (IDEMPOTENCY_KEY_REUSED). A key
// claimed by a request still being answered is IDEMPOTENCY_KEY_IN_USE (retry shortly); one whose
// first request was being answered by a process that died is IDEMPOTENCY_OUTCOME_UNKNOWN: it may
// have acted, so it is never run again (the audit log tells). Answers that say "try again" (5xx,
// 429) are not kept, so a retry really retries. Bounded by the store's limits (24 h, a row count).
#pragma once

#include "base/error.hpp"
#include "server/http_exchange.hpp"
#include "store/idempotency_records.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::server {

class IdempotentReplies {
public:
    // `self` names this process as the owner of its claims; `owner_alive(owner)` is false only when
    // the process that claimed a key is surely gone.
    IdempotentReplies(std::unique_ptr<store::IdempotencyRecords> records, std::string self,
                      std::function<bool(std::string_view owner)> owner_alive);

    // Held by the request that answers first; without finish() (an exception, a stream) the key
    // is released so that a retry runs again.
    class Claim {
    public:
        Claim(IdempotentReplies& owner, std::string scope, std::string key)
            : owner_(owner), scope_(std::move(scope)), key_(std::move(key)) {}
        ~Claim();
        Claim(const Claim&) = delete;
        Claim& operator=(const Claim&) = delete;
        // Keeps `answer` for the retries (unless it asks for a retry itself) and returns it.
        Response finish(Response answer);

    private:
        IdempotentReplies& owner_;
        std::string scope_;
        std::string key_;
        bool finished_ = false;
    };

    struct Begun {
        std::optional<Response> replay;  // the first answer, marked Idempotent-Replayed: true
        std::shared_ptr<Claim> claim;    // this request answers first
        // IDEMPOTENCY_KEY_INVALID / _REUSED / _IN_USE, IDEMPOTENCY_OUTCOME_UNKNOWN,
        // IDEMPOTENCY_KEYS_FULL, or the storage error (DATABASE_UNAVAILABLE, ...)
        std::optional<Error> refused;
    };

    // `scope`: user and endpoint; `body`: the request's content (its fingerprint is kept).
    Begun begin(std::string_view scope, std::string_view key, std::string_view body);

    static constexpr std::size_t max_key_chars = 255;
    // A larger answer is not kept: its retries are told so (IDEMPOTENCY_ANSWER_NOT_KEPT, 410).
    static constexpr std::size_t max_answer_bytes = 1024 * 1024;
    // Answers kept in memory at most while the database cannot be reached.
    static constexpr std::size_t max_unsaved = 1000;

private:
    Error in_progress_error(const store::IdempotencyRow& row, std::string_view key) const;
    void keep(const std::string& scope, const std::string& key, const Response& answer);
    void release(const std::string& scope, const std::string& key);
    void prune_now_and_then();
    // Stores the answers (and releases) the database could not take when they were given.
    void keep_unsaved();
    void remember_unsaved(const std::string& scope, const std::string& key, std::optional<std::string> answer);

    struct Unsaved {
        std::string scope;
        std::string key;
        std::optional<std::string> answer;  // empty: the claim is to be released
    };

    std::unique_ptr<store::IdempotencyRecords> records_;
    const std::string self_;
    const std::function<bool(std::string_view)> owner_alive_;
    std::atomic<std::int64_t> last_prune_ms_{0};
    // Answers given (and claims released) while the database could not be reached, stored at the
    // next request with a key (a retry of theirs until then is IDEMPOTENCY_KEY_IN_USE: never a
    // second run). The oldest beyond max_unsaved are given up (their keys stay in progress, so
    // they are not run again either).
    std::mutex unsaved_mutex_;
    std::deque<Unsaved> unsaved_;
};

// What is kept of an answer (status, headers, body) as text, and the answer back from it.
std::string encode_answer(const Response& answer);
std::optional<Response> decode_answer(std::string_view text);

}  // namespace skillhost::server
