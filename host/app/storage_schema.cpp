#include "app/storage_schema.hpp"
#include "db/error_codes.hpp"

#include "db/postgres_schema.hpp"
#include "db/sqlite_schema.hpp"

namespace skillhost::app {

db::StorageLocation storage_location(const config::HostConfig& config) {
    if (config.storage.backend == "postgres") return db::StorageLocation::postgres(config.storage.url);
    return db::StorageLocation::sqlite(config.database_file());
}

audit::AuditSource audit_source(const config::HostConfig& config) {
    audit::AuditSource source{config.audit_dir(), std::nullopt};
    if (config.storage.backend == "postgres") source.database = storage_location(config);
    return source;
}

std::filesystem::path audit_outbox_file(const config::HostConfig& config) {
    return config.home / "audit-outbox.jsonl";
}

bool audit_outbox_has_room(std::uintmax_t bytes) {
    return !audit::outbox_full_for_an_execution(bytes, audit::AuditOutbox::default_max_bytes);
}

Result<std::unique_ptr<audit::AuditLog>> open_audit_log(const config::HostConfig& config, audit::AuditOptions options) {
    const auto source = audit_source(config);
    if (!source.database) return audit::AuditLog::open(source.directory, std::move(options));
    // Records the database cannot take when it cannot be reached wait in a file of the home (which
    // a host on PostgreSQL may not have created yet: it keeps little else there).
    std::error_code ec;
    std::filesystem::create_directories(config.home, ec);
    auto outbox = audit::AuditOutbox::open(audit_outbox_file(config));
    if (!outbox) return outbox.error();
    auto sink = audit::DatabaseAuditSink::open(*source.database, options, std::move(outbox.value()));
    if (!sink) return sink.error();
    return audit::AuditLog::open(std::move(sink.value()), std::move(options));
}

Result<db::SchemaStatus> migrate_storage(const config::HostConfig& config) {
    const auto location = storage_location(config);
    if (location.backend == db::StorageBackend::postgres) {
        auto connection = db::PgConnection::open(location.postgres_url);
        if (!connection) return connection.error();
        return db::migrate_postgres_schema(*connection);
    }
    auto connection = db::SqliteConnection::open(location.sqlite_file);
    if (!connection) return connection.error();
    return db::migrate_sqlite_schema(*connection);
}

Result<db::SchemaStatus> check_storage(const config::HostConfig& config) {
    const auto location = storage_location(config);
    if (location.backend == db::StorageBackend::postgres) {
        auto connection = db::PgConnection::open(location.postgres_url);
        if (!connection) return connection.error();
        return db::check_postgres_schema(*connection);
    }
    std::error_code ec;
    if (!std::filesystem::exists(location.sqlite_file, ec)) {
        // Checking must not create the file; a home nobody used yet has nothing applied, like an
        // empty in-memory database.
        auto empty = db::SqliteConnection::open(":memory:");
        if (!empty) return empty.error();
        auto status = db::check_sqlite_schema(*empty);
        if (status) status->where = location.sqlite_file.string();
        return status;
    }
    auto connection = db::SqliteConnection::open(location.sqlite_file);
    if (!connection) return connection.error();
    return db::check_sqlite_schema(*connection);
}

std::vector<db::SqliteFileProblem> inspect_store_files(const config::HostConfig& config) {
    if (config.storage.backend == "postgres") return {};
    return db::inspect_sqlite_files(config.database_file());
}

Result<std::filesystem::path> set_aside_store_files(const config::HostConfig& config) {
    if (config.storage.backend == "postgres") {
        return Error{
            errors::kSetAsideFailed, "the storage is PostgreSQL: there are no database files to set aside", {}, {}};
    }
    return db::set_aside_sqlite_files(config.database_file());
}

}  // namespace skillhost::app
