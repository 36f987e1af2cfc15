// What a built-in plugin created for each retry key (the call's "skillhost.idempotency/1" key when
// the call may be retried: a run's step, an approval, a client's Idempotency-Key), in the plugin's
// own SQLite database. Used inside the write transaction that creates the row, so the row and its
// key are stored together or not at all. Keys are kept 30 days, longer than any retry waits.
#pragma once

#include "sqlite_database.hpp"

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

namespace skillhost_builtin {

// The id created earlier for `key`, if any. Call inside a WriteTransaction.
inline std::optional<std::int64_t> created_for_key(Database& db, const std::string& key) {
    db.exec(
        "CREATE TABLE IF NOT EXISTS created_by_key (key TEXT PRIMARY KEY, row_id INTEGER NOT NULL,"
        " created_unix INTEGER NOT NULL)");
    Statement seen = db.prepare("SELECT row_id FROM created_by_key WHERE key = ?1");
    seen.bind(1, key);
    if (seen.step()) return seen.int64(0);
    return std::nullopt;
}

// Records that `key` created `row_id` (and forgets keys older than 30 days). Same transaction.
inline void remember_created(Database& db, const std::string& key, std::int64_t row_id) {
    const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
    Statement remember = db.prepare("INSERT INTO created_by_key (key, row_id, created_unix) VALUES (?1, ?2, ?3)");
    remember.bind(1, key).bind(2, row_id).bind(3, now).run();
    Statement forget = db.prepare("DELETE FROM created_by_key WHERE created_unix < ?1");
    forget.bind(1, now - std::int64_t{30} * 86400).run();
}

}  // namespace skillhost_builtin
