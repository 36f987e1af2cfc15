#include "store/token_rows.hpp"

#include "db/postgres_connection.hpp"
#include "db/postgres_schema.hpp"
#include "db/sqlite_connection.hpp"
#include "db/sqlite_schema.hpp"

#include <sqlite3.h>

#include <mutex>

namespace skillhost::store {
namespace {

constexpr const char* columns = "SELECT sha256, user_id, label, created_ms, scopes FROM api_tokens";

class SqliteTokenRows final : public TokenRows {
public:
    explicit SqliteTokenRows(db::SqliteConnection connection) : connection_(std::move(connection)) {}

    Status insert(const TokenRow& row) override {
        std::lock_guard lock(mutex_);
        db::SqliteStatement insert(
            connection_, "INSERT INTO api_tokens (sha256, user_id, label, created_ms, scopes) VALUES (?, ?, ?, ?, ?)");
        if (!insert.prepared()) return connection_.error("storing an API token");
        insert.bind(1, row.sha256).bind(2, row.user_id).bind(3, row.label).bind(4, row.created_ms).bind(5, row.scopes);
        if (insert.step() != SQLITE_DONE) return connection_.error("storing an API token");
        return {};
    }

    Result<std::optional<TokenRow>> find(std::string_view sha256) const override {
        std::lock_guard lock(mutex_);
        db::SqliteStatement select(connection_, std::string(columns) + " WHERE sha256 = ?");
        if (!select.prepared()) return connection_.error("checking an API token");
        select.bind(1, sha256);
        const int rc = select.step();
        if (rc == SQLITE_DONE) return std::optional<TokenRow>{};
        if (rc != SQLITE_ROW) return connection_.error("checking an API token");
        return std::optional<TokenRow>(row_of(select));
    }

    Result<std::vector<TokenRow>> list(std::string_view user_id) const override {
        std::lock_guard lock(mutex_);
        db::SqliteStatement select(connection_, std::string(columns) + (user_id.empty() ? " ORDER BY created_ms"
                                                                                        : " WHERE user_id = ? "
                                                                                          "ORDER BY created_ms"));
        if (!select.prepared()) return connection_.error("listing API tokens");
        if (!user_id.empty()) select.bind(1, user_id);
        std::vector<TokenRow> rows;
        int rc = 0;
        while ((rc = select.step()) == SQLITE_ROW) rows.push_back(row_of(select));
        if (rc != SQLITE_DONE) return connection_.error("listing API tokens");
        return rows;
    }

    Result<int> remove_with_prefix(std::string_view prefix) override {
        std::lock_guard lock(mutex_);
        db::SqliteStatement remove(connection_, "DELETE FROM api_tokens WHERE substr(sha256, 1, ?) = ?");
        if (!remove.prepared()) return connection_.error("revoking an API token");
        remove.bind(1, static_cast<std::int64_t>(prefix.size())).bind(2, prefix);
        if (remove.step() != SQLITE_DONE) return connection_.error("revoking an API token");
        return sqlite3_changes(connection_.handle());
    }

private:
    static TokenRow row_of(const db::SqliteStatement& s) {
        return {s.text(0), s.text(1), s.text(2), s.integer(3), s.text(4)};
    }
    mutable std::mutex mutex_;
    db::SqliteConnection connection_;
};

class PostgresTokenRows final : public TokenRows {
public:
    explicit PostgresTokenRows(db::PgConnection connection) : connection_(std::move(connection)) {}

    Status insert(const TokenRow& row) override {
        std::lock_guard lock(mutex_);
        auto inserted = connection_.query(
            "INSERT INTO api_tokens (sha256, user_id, label, created_ms, scopes) VALUES ($1, $2, $3, $4, $5)",
            {row.sha256, row.user_id, row.label, std::to_string(row.created_ms), row.scopes});
        if (!inserted) return inserted.error();
        return {};
    }

    Result<std::optional<TokenRow>> find(std::string_view sha256) const override {
        std::lock_guard lock(mutex_);
        auto rows = connection_.query(std::string(columns) + " WHERE sha256 = $1", {std::string(sha256)});
        if (!rows) return rows.error();
        if (rows->rows() == 0) return std::optional<TokenRow>{};
        return std::optional<TokenRow>(row_of(*rows, 0));
    }

    Result<std::vector<TokenRow>> list(std::string_view user_id) const override {
        std::lock_guard lock(mutex_);
        auto rows = connection_.query(
            std::string(columns) + " WHERE ($1::text IS NULL OR user_id = $1) ORDER BY created_ms, sha256",
            {user_id.empty() ? db::PgParam{} : db::PgParam{std::string(user_id)}});
        if (!rows) return rows.error();
        std::vector<TokenRow> out;
        for (int row = 0; row < rows->rows(); ++row) out.push_back(row_of(*rows, row));
        return out;
    }

    Result<int> remove_with_prefix(std::string_view prefix) override {
        std::lock_guard lock(mutex_);
        auto removed = connection_.query("DELETE FROM api_tokens WHERE left(sha256, $1) = $2",
                                         {std::to_string(prefix.size()), std::string(prefix)});
        if (!removed) return removed.error();
        return static_cast<int>(removed->affected());
    }

private:
    static TokenRow row_of(const db::PgResult& r, int row) {
        return {r.text(row, 0), r.text(row, 1), r.text(row, 2), r.integer(row, 3), r.text(row, 4)};
    }
    mutable std::mutex mutex_;
    mutable db::PgConnection connection_;
};

}  // namespace

Result<std::unique_ptr<TokenRows>> TokenRows::open(const db::StorageLocation& location) {
    if (location.backend == db::StorageBackend::postgres) {
        auto connection = db::open_migrated_postgres(location.postgres_url);
        if (!connection) return connection.error();
        return std::unique_ptr<TokenRows>(new PostgresTokenRows(std::move(connection.value())));
    }
    auto connection = db::open_migrated_sqlite(location.sqlite_file);
    if (!connection) return connection.error();
    return std::unique_ptr<TokenRows>(new SqliteTokenRows(std::move(connection.value())));
}

}  // namespace skillhost::store
