// One connection to whichever backend a StorageLocation names, for stores whose SQL is the same on
// both (approvals, modes, audit records): statements are written once with `?` placeholders, and
// every value comes back as text or NULL. Stores whose SQL differs per backend (runs, playbook
// search) keep their own implementations. Thread-safe: SQLite statements are serialised on the one
// connection; PostgreSQL ones run on a small pool of connections (PgPool), so each run() may use
// another session: a transaction or a SET cannot span two run() calls; transaction() runs several
// statements on one session, all or nothing.
#pragma once

#include "base/error.hpp"
#include "db/storage_location.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace skillhost::db {

// A statement parameter: NULL, an integer or text.
using SqlValue = std::variant<std::monostate, std::int64_t, std::string>;

struct SqlRows {
    std::vector<std::vector<std::optional<std::string>>> rows;
    std::int64_t affected = 0;  // rows an INSERT/UPDATE/DELETE changed

    std::size_t size() const { return rows.size(); }
    bool is_null(std::size_t row, std::size_t column) const { return !rows[row][column].has_value(); }
    // "" for NULL.
    std::string text(std::size_t row, std::size_t column) const { return rows[row][column].value_or(""); }
    // 0 for NULL or text that is not a whole number.
    std::int64_t integer(std::size_t row, std::size_t column) const;
};

// The statements of one transaction: every run() goes to the same session.
class SqlSession {
public:
    virtual ~SqlSession() = default;
    // As BackendConnection::run().
    virtual Result<SqlRows> run(std::string_view doing, std::string_view sql, const std::vector<SqlValue>& params) = 0;
};

class BackendConnection {
public:
    // Connects and brings the schema up to date (creating the SQLite file if needed).
    static Result<std::unique_ptr<BackendConnection>> open(const StorageLocation& location);
    virtual ~BackendConnection() = default;

    // Runs one statement; `doing` names it in the DATABASE_ERROR ("claiming an approval").
    // `?` outside quoted literals are the parameters, in order.
    virtual Result<SqlRows> run(std::string_view doing, std::string_view sql, const std::vector<SqlValue>& params) = 0;

    // Runs `work` in one transaction on one session (SQLite: BEGIN IMMEDIATE, so writers queue;
    // PostgreSQL: READ COMMITTED on a pooled connection). Committed when `work` succeeds; rolled back
    // when it fails, and its error is returned. `work` must not call this connection's run().
    virtual Status transaction(const std::function<Status(SqlSession&)>& work) = 0;

    StorageBackend backend() const { return backend_; }
    // The file or the server (never a password), for messages.
    const std::string& where() const { return where_; }

protected:
    BackendConnection(StorageBackend backend, std::string where) : backend_(backend), where_(std::move(where)) {}

private:
    StorageBackend backend_;
    std::string where_;
};

// `sql` with its `?` placeholders numbered $1, $2, ... as PostgreSQL wants them; question marks
// inside single-quoted literals, double-quoted identifiers and comments are left alone.
std::string numbered_placeholders(std::string_view sql);

}  // namespace skillhost::db
