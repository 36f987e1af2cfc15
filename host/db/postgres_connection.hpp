// A small RAII layer over libpq for the PostgreSQL storage backend: one connection, text
// parameters ($1, $2, ...) and results, transactions. Like SqliteConnection, one connection is used
// by one thread at a time; its owner serialises.
#pragma once

#include "base/error.hpp"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace skillhost::db {

// One parameter as text; nullopt is SQL NULL.
using PgParam = std::optional<std::string>;

class PgResult {
public:
    PgResult() = default;
    explicit PgResult(pg_result* result) : result_(result) {}
    PgResult(PgResult&&) noexcept;
    PgResult& operator=(PgResult&&) noexcept;
    PgResult(const PgResult&) = delete;
    PgResult& operator=(const PgResult&) = delete;
    ~PgResult();

    int rows() const;
    int columns() const;
    std::string text(int row, int column) const;
    std::int64_t integer(int row, int column) const;
    bool is_null(int row, int column) const;
    // Rows an INSERT/UPDATE/DELETE touched.
    std::int64_t affected() const;

private:
    pg_result* result_ = nullptr;
};

class PgConnection {
public:
    // Connects with `url` (a libpq connection string or URI); connect_timeout defaults to 10 seconds
    // unless the string sets it. DATABASE_ERROR naming the server (never the password) on failure.
    static Result<PgConnection> open(std::string_view url);

    PgConnection(PgConnection&&) noexcept;
    PgConnection& operator=(PgConnection&&) noexcept;
    PgConnection(const PgConnection&) = delete;
    PgConnection& operator=(const PgConnection&) = delete;
    ~PgConnection();

    // Runs one or more statements without parameters.
    Status exec(std::string_view sql);
    // Runs one statement with text parameters. DATABASE_ERROR carrying details.sqlstate.
    Result<PgResult> query(std::string_view sql, const std::vector<PgParam>& params = {});
    // "user@host:port/dbname" of the connected server, for messages (no password).
    const std::string& target() const { return target_; }
    // The libpq connection, for what this layer does not wrap (a listener's socket).
    pg_conn* native_handle() { return conn_; }

private:
    explicit PgConnection(pg_conn* conn);
    Error error(std::string_view doing, pg_result* result) const;
    pg_conn* conn_ = nullptr;
    std::string target_;
};

// SQLSTATE of a DATABASE_ERROR from this layer ("40001", "23505", ...), empty for other errors.
std::string sqlstate_of(const Error& error);

// BEGIN ... COMMIT; rolls back when destroyed uncommitted.
class PgTransaction {
public:
    explicit PgTransaction(PgConnection& connection);
    PgTransaction(const PgTransaction&) = delete;
    PgTransaction& operator=(const PgTransaction&) = delete;
    ~PgTransaction();

    const Status& begun() const { return begun_; }
    Status commit();

private:
    PgConnection& connection_;
    Status begun_;
    bool open_ = false;
};

}  // namespace skillhost::db
