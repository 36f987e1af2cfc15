#include "server/idempotent_replies.hpp"
#include "server/error_codes.hpp"

#include "base/sha256.hpp"
#include "base/utc_time.hpp"
#include "server/api_error.hpp"
#include "store/run_record.hpp"

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

namespace skillhost::server {

namespace json = boost::json;

namespace {

// Expired keys are swept at most this often (each claim also forgets its own expired key).
constexpr std::int64_t prune_every_ms = 60 * 1000;

bool retry_means_retry(const Response& answer) {
    const unsigned status = answer.result_int();
    return status >= 500 || status == 429;
}

// The answer a retry gets when the first answer was too large to keep: the truth, and where to look.
Response answer_not_kept(const Response& answer) {
    Error e{errors::kIdempotencyAnswerNotKept,
            "the first request with this Idempotency-Key was answered (HTTP " + std::to_string(answer.result_int()) +
                ", " + std::to_string(answer.body().size()) + " bytes), but answers over " +
                std::to_string(IdempotentReplies::max_answer_bytes) +
                " bytes are not kept for retries; it is not run again",
            {},
            {"find what it did in the audit log (GET /v1/audit)", "send a new key to run the request again"}};
    e.details["status"] = answer.result_int();
    return error_response(e);
}

}  // namespace

std::string encode_answer(const Response& answer) {
    json::array headers;
    for (const auto& field : answer) {
        const auto name = field.name();
        if (name == http::field::content_length || name == http::field::date || name == http::field::connection)
            continue;
        headers.push_back(json::array{json::string(field.name_string()), json::string(field.value())});
    }
    return json::serialize(json::object{{"status", static_cast<std::int64_t>(answer.result_int())},
                                        {"headers", std::move(headers)},
                                        {"body", answer.body()}});
}

std::optional<Response> decode_answer(std::string_view text) {
    boost::system::error_code ec;
    auto value = json::parse(text, ec);
    if (ec || !value.is_object()) return std::nullopt;
    const auto& kept = value.as_object();
    const auto* status = kept.if_contains("status");
    const auto* headers = kept.if_contains("headers");
    const auto* body = kept.if_contains("body");
    if (!status || !status->is_int64() || !headers || !headers->is_array() || !body || !body->is_string())
        return std::nullopt;
    Response answer{static_cast<http::status>(status->as_int64()), 11};
    for (const auto& header : headers->as_array()) {
        if (!header.is_array() || header.as_array().size() != 2 || !header.as_array()[0].is_string() ||
            !header.as_array()[1].is_string())
            return std::nullopt;
        answer.insert(std::string_view(header.as_array()[0].as_string()),
                      std::string_view(header.as_array()[1].as_string()));
    }
    answer.body() = std::string(body->as_string());
    answer.prepare_payload();
    return answer;
}

IdempotentReplies::IdempotentReplies(std::unique_ptr<store::IdempotencyRecords> records, std::string self,
                                     std::function<bool(std::string_view owner)> owner_alive)
    : records_(std::move(records)), self_(std::move(self)), owner_alive_(std::move(owner_alive)) {}

IdempotentReplies::Claim::~Claim() {
    if (!finished_) owner_.release(scope_, key_);
}

Response IdempotentReplies::Claim::finish(Response answer) {
    finished_ = true;
    if (retry_means_retry(answer)) {
        owner_.release(scope_, key_);
    } else {
        owner_.keep(scope_, key_, answer);
    }
    return answer;
}

IdempotentReplies::Begun IdempotentReplies::begin(std::string_view scope, std::string_view key, std::string_view body) {
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
    prune_now_and_then();
    keep_unsaved();
    const std::string fingerprint = sha256_hex(body);
    auto claimed = records_->claim(scope, key, fingerprint, self_);
    if (!claimed) {
        begun.refused = claimed.error();
        return begun;
    }
    if (!claimed->has_value()) {
        begun.claim = std::make_shared<Claim>(*this, std::string(scope), std::string(key));
        return begun;
    }
    const store::IdempotencyRow& row = **claimed;
    if (row.fingerprint != fingerprint) {
        Error e{errors::kIdempotencyKeyReused,
                "this Idempotency-Key was used for a different request; use a new key for each new request",
                {},
                {}};
        begun.refused = std::move(e);
    } else if (!row.answer) {
        begun.refused = in_progress_error(row, key);
    } else if (auto replay = decode_answer(*row.answer)) {
        replay->set("Idempotent-Replayed", "true");
        begun.replay = std::move(*replay);
    } else {
        Error e{errors::kInternal,
                "the kept answer to this Idempotency-Key cannot be read back; the request is not run again",
                {},
                {"find what it did in the audit log (GET /v1/audit)", "send a new key to run the request again"}};
        begun.refused = std::move(e);
    }
    return begun;
}

Error IdempotentReplies::in_progress_error(const store::IdempotencyRow& row, std::string_view key) const {
    const std::string since = format_utc_timestamp(TimePoint(std::chrono::milliseconds(row.created_ms)));
    if (row.owner == self_ || owner_alive_(row.owner)) {
        Error e{errors::kIdempotencyKeyInUse,
                "the first request with this Idempotency-Key (since " + since +
                    ") is still being answered; retry shortly to get its answer",
                {},
                {}};
        e.details["retry_after_ms"] = std::int64_t{1000};
        return e;
    }
    Error e{errors::kIdempotencyOutcomeUnknown,
            "the first request with Idempotency-Key " + std::string(key) + " (at " + since +
                ") was being answered by a daemon process that stopped before it answered (" + row.owner +
                "); whether it acted is unknown, so it is not run again",
            {},
            {"look for its records in the audit log from " + since + " (GET /v1/audit?since=...)",
             "if it did not act, send the request again with a new Idempotency-Key"}};
    e.details["owner"] = row.owner;
    e.details["started_ms"] = row.created_ms;
    return e;
}

void IdempotentReplies::keep(const std::string& scope, const std::string& key, const Response& answer) {
    std::string text = encode_answer(answer);
    if (answer.body().size() > max_answer_bytes) text = encode_answer(answer_not_kept(answer));
    auto kept = records_->keep_answer(scope, key, self_, text);
    if (!kept) {
        // The claim stays in progress (its retries are told IN_USE, never run twice) until the
        // database takes the answer.
        spdlog::warn("serve: the answer to Idempotency-Key {} waits until the database takes it ({})", key,
                     kept.error().message);
        remember_unsaved(scope, key, std::move(text));
    } else if (!*kept) {
        spdlog::warn("serve: the claim of Idempotency-Key {} expired before its answer; it was not kept", key);
    }
}

void IdempotentReplies::remember_unsaved(const std::string& scope, const std::string& key,
                                         std::optional<std::string> answer) {
    std::lock_guard lock(unsaved_mutex_);
    if (unsaved_.size() >= max_unsaved) {
        spdlog::warn(
            "serve: more than {} Idempotency-Key answers wait for the database; the oldest ({}) is given up: "
            "its retries are told IN_USE until this process stops, then that its outcome is unknown",
            max_unsaved, unsaved_.front().key);
        unsaved_.pop_front();
    }
    unsaved_.push_back(Unsaved{scope, key, std::move(answer)});
}

void IdempotentReplies::keep_unsaved() {
    std::lock_guard lock(unsaved_mutex_);
    while (!unsaved_.empty()) {
        const Unsaved& first = unsaved_.front();
        Status stored;
        if (first.answer) {
            if (auto kept = records_->keep_answer(first.scope, first.key, self_, *first.answer); !kept)
                stored = kept.error();
        } else {
            stored = records_->release(first.scope, first.key, self_);
        }
        if (!stored) return;  // still unreachable: the next request tries again
        unsaved_.pop_front();
    }
}

void IdempotentReplies::release(const std::string& scope, const std::string& key) {
    if (auto st = records_->release(scope, key, self_); !st) {
        spdlog::warn("serve: Idempotency-Key {} is released once the database can be reached ({})", key,
                     st.error().message);
        remember_unsaved(scope, key, std::nullopt);
    }
}

void IdempotentReplies::prune_now_and_then() {
    const std::int64_t now = store::unix_ms_now();
    std::int64_t last = last_prune_ms_.load();
    if (now - last < prune_every_ms || !last_prune_ms_.compare_exchange_strong(last, now)) return;
    if (auto pruned = records_->prune(); !pruned)
        spdlog::warn("serve: expired Idempotency-Keys were not forgotten: {}", pruned.error().message);
}

}  // namespace skillhost::server
