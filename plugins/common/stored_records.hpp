// Pieces the built-in stateful plugins share on the host's storage ("skillhost.storage/1"):
// numbered records (keys that list in id order), reading a whole collection page by page, and the
// record of what a retried call already did.
#pragma once

#include <skillhost/skill.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

namespace skillhost_builtin {

// `call`'s storage, or STORAGE_UNAVAILABLE saying that `plugin` keeps its `what` there and needs a
// host that offers it (an older host, or a test kit without storage).
inline skillhost::Storage require_storage(const skillhost::Call& call, std::string_view plugin, std::string_view what) {
    skillhost::Storage storage = call.storage();
    if (!storage.available())
        throw skillhost::SkillError("STORAGE_UNAVAILABLE",
                                    "the " + std::string(plugin) + " plugin keeps its " + std::string(what) +
                                        " in the host's storage (skillhost.storage/1), which this host does not "
                                        "offer; run it on skillhost with plugin storage (the host that shipped it)");
    return storage;
}

// The key of record `id` in a numbered collection: 16 digits, zero-padded, so keys list in id order.
inline std::string record_key(std::int64_t id) {
    char key[32];
    std::snprintf(key, sizeof key, "%016lld", static_cast<long long>(id));
    return key;
}

// Every record of `collection`, in key order. A store holds at most SKILLHOST_STORAGE_MAX_RECORDS
// records, so this takes a bounded number of requests; `what` names the collection in the error a
// store that keeps answering pages past that bound gets.
inline std::vector<skillhost::Record> list_all(const skillhost::Storage& storage, std::string_view collection,
                                               const std::string& what) {
    constexpr std::uint32_t kPage = SKILLHOST_STORAGE_MAX_LIST_LIMIT;
    constexpr std::size_t kMaxPages = SKILLHOST_STORAGE_MAX_RECORDS / SKILLHOST_STORAGE_MAX_LIST_LIMIT + 2;
    std::vector<skillhost::Record> out;
    std::string cursor;
    for (std::size_t page_number = 0; page_number < kMaxPages; ++page_number) {
        auto page = storage.list(collection, "", cursor, kPage);
        for (auto& record : page.records) out.push_back(std::move(record));
        if (page.next_cursor.empty()) return out;
        cursor = std::move(page.next_cursor);
    }
    throw skillhost::SkillError("STORED_LIST_TOO_LONG",
                                "the " + what + " have more pages than any store can hold; they were not read",
                                skillhost::Json::object({{"pages", static_cast<std::int64_t>(kMaxPages)}}));
}

inline bool is_storage_conflict(const skillhost::SkillError& e) {
    return e.code() == "STORAGE_CONFLICT";
}

// Creates `value` under the next id of the numbered `collection`; its id.
inline std::int64_t create_record(const skillhost::Storage& storage, std::string_view collection,
                                  const skillhost::Json& value) {
    for (int attempt = 0;; ++attempt) {
        const std::int64_t id = storage.next_id(collection);
        try {
            storage.put(collection, record_key(id), value, 0);
            return id;
        } catch (const skillhost::SkillError& e) {
            // The id is held by a record an import of an older file was writing while this call took
            // it (before the import advanced the sequence): the next id is past the import's.
            if (!is_storage_conflict(e) || attempt >= 1) throw;
        }
    }
}

// What a call that may be retried (its idempotency key: a run's step, an approval, a client's
// Idempotency-Key) created or answered, kept in collection `retry_keys` and written in the same
// batch as the change, so a retry acts once. `retry_keys.by_time` indexes the keys by age; keys
// older than 30 days (longer than any retry waits) are forgotten a few at a time with each new one.
class RetryKeys {
public:
    explicit RetryKeys(const skillhost::Storage& storage) : storage_(storage) {}

    // What was recorded for `key`, if it was acted on before.
    std::optional<skillhost::Json> find(const std::string& key) const {
        auto record = storage_.get(kKeys, key);
        if (!record) return std::nullopt;
        return record->value;
    }

    // Batch operations recording `value` for `key` (create only: a key recorded meanwhile makes the
    // batch fail with STORAGE_CONFLICT), its age index, and the forgetting of a few keys past keeping.
    skillhost::Json remember(const std::string& key, const skillhost::Json& value) const {
        const auto now = static_cast<std::int64_t>(std::time(nullptr));
        char stamp[24];
        std::snprintf(stamp, sizeof stamp, "%012lld", static_cast<long long>(now));
        skillhost::Json recorded = value;
        recorded["at"] = now;
        using skillhost::Json;
        Json operations = Json::array(
            {Json::object(
                 {{"op", "put"}, {"collection", kKeys}, {"key", key}, {"value", recorded}, {"expected_version", 0}}),
             Json::object({{"op", "put"},
                           {"collection", kByTime},
                           {"key", std::string(stamp) + ":" + key},
                           {"value", Json::object({{"key", key}})}})});
        // The oldest keys come first (the index is keyed by time): forget a few that are past keeping,
        // more than the one added, so the collection never holds much more than 30 days of keys.
        auto oldest = storage_.list(kByTime, "", "", kForgetPerWrite);
        for (const auto& record : oldest.records) {
            const std::int64_t at = std::strtoll(record.key.c_str(), nullptr, 10);
            if (at >= now - kKeepDays * 86400) break;
            operations.push_back(Json::object({{"op", "remove"}, {"collection", kByTime}, {"key", record.key}}));
            if (const Json* old = record.value.find("key"); old && old->is_string() && old->as_string() != key)
                operations.push_back(Json::object({{"op", "remove"}, {"collection", kKeys}, {"key", *old}}));
        }
        return operations;
    }

    struct Created {
        std::int64_t id = 0;
        bool repeated = false;  // the key was acted on before: `id` is what that attempt created
    };
    // Creates `value` under the next id of the numbered `collection`, once per `retry_key`: the key
    // is recorded (with the id) in the same batch as the record, and a key acted on before returns
    // that id and creates nothing. `busy_code` names the error when racing attempts with the same key
    // kept conflicting.
    Created create_once(std::string_view collection, const std::string& retry_key, const skillhost::Json& value,
                        const char* busy_code) const {
        using skillhost::Json;
        for (int attempt = 0; attempt < 2; ++attempt) {
            if (auto earlier = find(retry_key)) return {earlier->int_or("created_id", 0), true};
            const std::int64_t id = storage_.next_id(collection);
            Json operations = remember(retry_key, Json::object({{"created_id", id}}));
            auto& list = operations.as_array();
            list.insert(list.begin(), Json::object({{"op", "put"},
                                                    {"collection", std::string(collection)},
                                                    {"key", record_key(id)},
                                                    {"value", value},
                                                    {"expected_version", 0}}));
            try {
                storage_.batch(operations);
                return {id, false};
            } catch (const skillhost::SkillError& e) {
                // Another attempt with the same key won the race (its key is recorded now): answer
                // with its record. The id this attempt took is skipped, never reused.
                if (!is_storage_conflict(e)) throw;
            }
        }
        throw skillhost::SkillError(
            busy_code,
            "creating the record for retry key '" + retry_key + "' kept conflicting with another attempt; retry",
            Json::object({{"retry_key", retry_key}}));
    }

private:
    static constexpr const char* kKeys = "retry_keys";
    static constexpr const char* kByTime = "retry_keys.by_time";
    static constexpr std::int64_t kKeepDays = 30;
    static constexpr std::uint32_t kForgetPerWrite = 8;
    skillhost::Storage storage_;
};

}  // namespace skillhost_builtin
