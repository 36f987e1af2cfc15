#include "server/idempotent_replies.hpp"
#include "server/error_codes.hpp"

namespace skillhost::server {

IdempotentReplies::IdempotentReplies(std::size_t capacity, std::chrono::seconds ttl) : capacity_(capacity), ttl_(ttl) {}

IdempotentReplies::Claim::~Claim() {
    if (!finished_) owner_.release(slot_);
}

Response IdempotentReplies::Claim::finish(Response answer) {
    finished_ = true;
    const unsigned status = answer.result_int();
    if (status >= 500 || status == 429) {
        owner_.release(slot_);
    } else {
        owner_.keep(slot_, answer);
    }
    return answer;
}

IdempotentReplies::Begun IdempotentReplies::begin(std::string_view scope, std::string_view key,
                                                  std::string fingerprint) {
    Begun begun;
    if (key.empty() || key.size() > max_key_chars ||
        key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") !=
            std::string_view::npos) {
        Error e{errors::kIdempotencyKeyInvalid,
                "the Idempotency-Key header must be 1 to " + std::to_string(max_key_chars) +
                    " letters, digits or - _ . : (a UUID works)",
                {},
                {}};
        begun.refused = std::move(e);
        return begun;
    }
    std::string slot = std::string(scope) + '\n' + std::string(key);
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    forget_old_locked(now);
    auto it = entries_.find(slot);
    if (it != entries_.end()) {
        if (it->second.fingerprint != fingerprint) {
            Error e{errors::kIdempotencyKeyReused,
                    "this Idempotency-Key was used for a different request; use a new key for each new request",
                    {},
                    {}};
            begun.refused = std::move(e);
        } else if (!it->second.answer) {
            Error e{errors::kIdempotencyKeyInUse,
                    "the first request with this Idempotency-Key is still being answered; retry shortly to get its "
                    "answer",
                    {},
                    {}};
            begun.refused = std::move(e);
        } else {
            Response replay = *it->second.answer;
            replay.set("Idempotent-Replayed", "true");
            begun.replay = std::move(replay);
        }
        return begun;
    }
    entries_.emplace(slot, Entry{std::move(fingerprint), std::nullopt, now});
    order_.push_back(slot);
    begun.claim = std::make_shared<Claim>(*this, std::move(slot));
    return begun;
}

void IdempotentReplies::release(const std::string& slot) {
    std::lock_guard lock(mutex_);
    entries_.erase(slot);
}

void IdempotentReplies::keep(const std::string& slot, const Response& answer) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(slot);
    if (it == entries_.end()) return;
    it->second.answer = answer;
    it->second.at = std::chrono::steady_clock::now();
}

void IdempotentReplies::forget_old_locked(std::chrono::steady_clock::time_point now) {
    // Oldest first: past the TTL, or beyond capacity (never an answer still being written).
    while (!order_.empty()) {
        auto it = entries_.find(order_.front());
        if (it == entries_.end()) {
            order_.pop_front();  // released earlier
            continue;
        }
        const bool expired = now - it->second.at > ttl_;
        const bool over = entries_.size() >= capacity_;
        if (!(expired || over) || !it->second.answer) break;
        entries_.erase(it);
        order_.pop_front();
    }
    // order_ may hold released slots that entries_ reuses later; keep it bounded too.
    while (order_.size() > 2 * capacity_ + 16) order_.pop_front();
}

}  // namespace skillhost::server
