// Runs one statement on a queue's database from outside skillhost (a raw SQLite handle or a raw
// PostgreSQL connection), as a hand edit or a buggy tool would: what the database's own rules say.
#pragma once

#include "db/postgres_connection.hpp"
#include "db/storage_location.hpp"

#include <sqlite3.h>

#include <string>

namespace skillhost::decisions {

// The database's refusal of `sql` ("" when it ran).
inline std::string refusal_of_sql_from_outside(const db::StorageLocation& where, const std::string& sql) {
    if (where.backend == db::StorageBackend::sqlite) {
        sqlite3* raw = nullptr;
        if (sqlite3_open(where.sqlite_file.c_str(), &raw) != SQLITE_OK)
            return "cannot open " + where.sqlite_file.string();
        char* message = nullptr;
        const bool ran = sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK;
        std::string refusal = ran ? std::string() : std::string(message ? message : "refused");
        sqlite3_free(message);
        sqlite3_close(raw);
        return refusal;
    }
    auto raw = db::PgConnection::open(where.postgres_url);
    if (!raw) return "cannot connect: " + raw.error().message;
    const auto ran = raw->exec(sql);
    return ran ? std::string() : ran.error().message;
}

}  // namespace skillhost::decisions
