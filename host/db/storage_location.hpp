// Where shared state lives: the SQLite file of a home (the embedded default) or a PostgreSQL
// database (several daemons). Every store opens from one of these, so choosing the backend is one
// value built from skillhost.yaml's `storage:`.
#pragma once

#include <filesystem>
#include <string>

namespace skillhost::db {

enum class StorageBackend { sqlite, postgres };

struct StorageLocation {
    StorageBackend backend = StorageBackend::sqlite;
    std::filesystem::path sqlite_file;  // backend sqlite: <home>/skillhost.db
    std::string postgres_url;           // backend postgres: a libpq connection string

    static StorageLocation sqlite(std::filesystem::path file) { return {StorageBackend::sqlite, std::move(file), {}}; }
    static StorageLocation postgres(std::string url) { return {StorageBackend::postgres, {}, std::move(url)}; }
};

}  // namespace skillhost::db
