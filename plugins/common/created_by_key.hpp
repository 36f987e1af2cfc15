// What a built-in plugin created (or answered) for each retry key (the call's
// "skillhost.idempotency/1" key when the call may be retried: a run's step, an approval, a
// client's Idempotency-Key), in the plugin's own SQLite database. Used inside the write transaction
// that makes the change, so the change and its key are stored together or not at all. Keys are
// kept 30 days, longer than any retry waits.
#pragma once

#include "sqlite_database.hpp"

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <utility>

namespace skillhost_builtin {

namespace detail {

// The value stored for `key` in `table` (key → value, created on first use with `column_decl`), as
// `read` takes it from the row. Call inside a WriteTransaction.
template <typename Read>
auto stored_for_key(Database& db, const std::string& table, const std::string& column_decl, const std::string& column,
                    const std::string& key, Read read) -> std::optional<decltype(read(std::declval<Statement&>()))> {
    db.exec("CREATE TABLE IF NOT EXISTS " + table + " (key TEXT PRIMARY KEY, " + column_decl +
            ", created_unix INTEGER NOT NULL)");
    Statement seen = db.prepare("SELECT " + column + " FROM " + table + " WHERE key = ?1");
    seen.bind(1, key);
    if (seen.step()) return read(seen);
    return std::nullopt;
}

// Stores `value` for `key` (and forgets keys older than 30 days). Same transaction as the change.
template <typename Value>
void store_for_key(Database& db, const std::string& table, const std::string& column, const std::string& key,
                   const Value& value) {
    const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
    Statement remember =
        db.prepare("INSERT INTO " + table + " (key, " + column + ", created_unix) VALUES (?1, ?2, ?3)");
    remember.bind(1, key).bind(2, value).bind(3, now).run();
    Statement forget = db.prepare("DELETE FROM " + table + " WHERE created_unix < ?1");
    forget.bind(1, now - std::int64_t{30} * 86400).run();
}

}  // namespace detail

// The id created earlier for `key`, if any. Call inside a WriteTransaction.
inline std::optional<std::int64_t> created_for_key(Database& db, const std::string& key) {
    return detail::stored_for_key(db, "created_by_key", "row_id INTEGER NOT NULL", "row_id", key,
                                  [](Statement& row) { return row.int64(0); });
}

// Records that `key` created `row_id`. Same transaction.
inline void remember_created(Database& db, const std::string& key, std::int64_t row_id) {
    detail::store_for_key(db, "created_by_key", "row_id", key, row_id);
}

// A change that is not a creation (an update, a delete) done once per retry key: the answer the
// first attempt gave is recorded with the change, in its transaction, and a retry gets that answer
// and changes nothing (a delete retried after its task is gone is not TASK_NOT_FOUND).
struct AnswerOnce {
    std::string key;                     // the call's retry key
    std::optional<std::string> earlier;  // set when the key was acted on before
};

// The answer recorded for `key`, if any. Call inside a WriteTransaction.
inline std::optional<std::string> answered_for_key(Database& db, const std::string& key) {
    return detail::stored_for_key(db, "answer_by_key", "answer TEXT NOT NULL", "answer", key,
                                  [](Statement& row) { return row.text(0); });
}

// Records `answer` for `key`. Same transaction as the change.
inline void remember_answer(Database& db, const std::string& key, const std::string& answer) {
    detail::store_for_key(db, "answer_by_key", "answer", key, answer);
}

}  // namespace skillhost_builtin
