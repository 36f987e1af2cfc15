// The schema of skillhost.db as numbered migrations, applied in order inside one BEGIN IMMEDIATE
// transaction. The version is SQLite's `PRAGMA user_version` (read without a lock, so a store
// opening an up-to-date file pays one read); `schema_migrations` records when each was applied.
// Files from the first release have version 0 and upgrade in place.
#pragma once

#include "base/error.hpp"
#include "db/schema_status.hpp"
#include "db/sqlite_connection.hpp"

namespace skillhost::db {

// The version of the newest migration this build knows.
int latest_sqlite_schema_version();

// Applies every pending migration. Every store calls it when it opens the file, so a home is
// usable without running `skillhost db migrate` first. SCHEMA_TOO_NEW when the file is newer.
// `up_to` stops at that version (0: the latest), for upgrade tests.
Result<SchemaStatus> migrate_sqlite_schema(SqliteConnection& connection, int up_to = 0);

// Opens the file and brings its schema up to date: what every store does first.
Result<SqliteConnection> open_migrated_sqlite(const std::filesystem::path& file);

// Reads where the file stands without changing it.
Result<SchemaStatus> check_sqlite_schema(SqliteConnection& connection);

}  // namespace skillhost::db
