// The PostgreSQL schema as numbered migrations (its own sequence; the SQLite file has another).
// `schema_migrations` holds one row per applied version. Migrating takes a transaction-scoped
// advisory lock, so daemons starting together against one database migrate it once between them.
#pragma once

#include "base/error.hpp"
#include "db/postgres_connection.hpp"
#include "db/schema_status.hpp"

namespace skillhost::db {

int latest_postgres_schema_version();

// Applies every pending migration (up to version `up_to`; 0: all) in one transaction.
// SCHEMA_TOO_NEW when the database is newer than this build.
Result<SchemaStatus> migrate_postgres_schema(PgConnection& connection, int up_to = 0);

// Connects and brings the schema up to date: what every store does first.
Result<PgConnection> open_migrated_postgres(const std::string& url);

// Reads where the database stands without changing it.
Result<SchemaStatus> check_postgres_schema(PgConnection& connection);

}  // namespace skillhost::db
