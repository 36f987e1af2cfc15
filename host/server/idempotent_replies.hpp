// The first answer to each Idempotency-Key, so a client that retries after a timeout (or a lost
// connection) gets that answer again instead of a second effect. Keys are scoped by user and
// endpoint; the same key with a different request body is refused (IDEMPOTENCY_KEY_REUSED), and a
// key whose first request is still being answered is IDEMPOTENCY_KEY_IN_USE (retry shortly).
// Answers that say "try again" (5xx, 429) are not kept, so a retry really retries. Bounded: at most
// `capacity` answers for at most `ttl`, the oldest forgotten first. In memory: a restarted daemon
// forgets them (the run and call records themselves are durable).
#pragma once

#include "base/error.hpp"
#include "server/http_exchange.hpp"

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::server {

class IdempotentReplies {
public:
    explicit IdempotentReplies(std::size_t capacity = 10000, std::chrono::seconds ttl = std::chrono::hours(24));

    // Held by the request that answers first; without finish() (an exception, a stream) the key
    // is released so that a retry runs again.
    class Claim {
    public:
        Claim(IdempotentReplies& owner, std::string slot) : owner_(owner), slot_(std::move(slot)) {}
        ~Claim();
        Claim(const Claim&) = delete;
        Claim& operator=(const Claim&) = delete;
        // Keeps `answer` for the retries (unless it asks for a retry itself) and returns it.
        Response finish(Response answer);

    private:
        IdempotentReplies& owner_;
        std::string slot_;
        bool finished_ = false;
    };

    struct Begun {
        std::optional<Response> replay;  // the first answer, marked Idempotent-Replayed: true
        std::shared_ptr<Claim> claim;    // this request answers first
        std::optional<Error> refused;    // IDEMPOTENCY_KEY_INVALID / _REUSED / _IN_USE
    };

    // `scope`: user and endpoint; `fingerprint`: what identifies the request's content (its body).
    Begun begin(std::string_view scope, std::string_view key, std::string fingerprint);

    static constexpr std::size_t max_key_chars = 255;

private:
    struct Entry {
        std::string fingerprint;
        std::optional<Response> answer;  // empty while the first request is being answered
        std::chrono::steady_clock::time_point at;
    };
    void release(const std::string& slot);
    void keep(const std::string& slot, const Response& answer);
    void forget_old_locked(std::chrono::steady_clock::time_point now);

    const std::size_t capacity_;
    const std::chrono::seconds ttl_;
    std::mutex mutex_;
    std::map<std::string, Entry, std::less<>> entries_;
    std::deque<std::string> order_;  // slots, oldest first (may name slots already released)
};

}  // namespace skillhost::server
