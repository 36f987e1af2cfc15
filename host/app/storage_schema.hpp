// The storage backend skillhost.yaml's `storage:` names, and its schema for `skillhost db
// migrate|check`. Every store opens from the location built here.
#pragma once

#include "base/error.hpp"
#include "config/host_config.hpp"
#include "db/schema_status.hpp"
#include "db/sqlite_file_check.hpp"
#include "db/storage_location.hpp"
#include "audit/audit_database.hpp"
#include "audit/audit_log.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>

namespace skillhost::app {

db::StorageLocation storage_location(const config::HostConfig& config);

// Where the audit log is kept: <home>/audit day files with SQLite, the audit_records table with
// PostgreSQL (shared by every instance).
audit::AuditSource audit_source(const config::HostConfig& config);
// Where a host on PostgreSQL keeps the audit records the database could not take yet.
std::filesystem::path audit_outbox_file(const config::HostConfig& config);
// Whether an execution's after-call record still fits in an outbox holding `bytes` (the audit sink
// refuses executions beyond that).
bool audit_outbox_has_room(std::uintmax_t bytes);

Result<std::unique_ptr<audit::AuditLog>> open_audit_log(const config::HostConfig& config,
                                                        audit::AuditOptions options = {});

// Applies the pending migrations of the configured backend (creating the SQLite file if needed).
Result<db::SchemaStatus> migrate_storage(const config::HostConfig& config);
// Where the configured backend's schema stands, changing nothing (a missing SQLite file is version 0).
Result<db::SchemaStatus> check_storage(const config::HostConfig& config);

// Damage SQLite would work around silently (db/sqlite_file_check.hpp); none on PostgreSQL.
std::vector<db::SqliteFileProblem> inspect_store_files(const config::HostConfig& config);
// Moves the SQLite database and its -wal/-shm aside into damaged-<time>/ beside them.
Result<std::filesystem::path> set_aside_store_files(const config::HostConfig& config);

}  // namespace skillhost::app
