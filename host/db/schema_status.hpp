// Where a database's schema stands against the migrations this build knows, for every backend.
#pragma once

#include "base/error.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::db {

struct SchemaMigration {
    int version = 0;
    std::string_view description;
};

struct SchemaStatus {
    std::string backend;                   // sqlite | postgres
    std::string where;                     // the database file, or the connection target without its password
    int current = 0;                       // the version the database is at (0: nothing applied yet)
    int latest = 0;                        // the newest version this build knows
    std::vector<SchemaMigration> pending;  // what `skillhost db migrate` would apply, in order
    bool up_to_date() const { return current == latest; }
};

// Where a database at `current` stands against a backend's migrations (each has `.info`).
template <class Migration, std::size_t count>
SchemaStatus schema_status_at(std::string backend, std::string where, int current,
                              const Migration (&migrations)[count]) {
    SchemaStatus status{std::move(backend), std::move(where), current, migrations[count - 1].info.version, {}};
    for (const auto& migration : migrations) {
        if (migration.info.version > current) status.pending.push_back(migration.info);
    }
    return status;
}

// SCHEMA_TOO_NEW: the database was migrated by a newer skillhost; this one must not write to it.
Error schema_too_new_error(const SchemaStatus& status);

}  // namespace skillhost::db
