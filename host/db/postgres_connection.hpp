// A small RAII layer over libpq for the PostgreSQL storage backend: one connection, text
// parameters ($1, $2, ...) and results, transactions. Like SqliteConnection, one connection is used
// by one thread at a time; its owner serialises.
//
// A connection that broke (the server restarted, the network dropped) is re-opened on its next use,
// at most once per backoff interval (100 ms doubling to 5 s while it keeps failing); meanwhile and
// for the statement that found it broken, calls fail fast with DATABASE_UNAVAILABLE (HTTP 503), never
// hang. A connection that broke inside a transaction is not re-opened until the transaction is
// rolled back, so no statement of a transaction ever runs on a fresh session. Session settings
// (`SET name = value`) are applied again after a reconnect; session advisory locks are not: their
// holders compare reconnects() to learn that they lost them.
#pragma once

#include "base/error.hpp"

#include <chrono>
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
    // The same with an explicit connect timeout (whole seconds, at least 1): readiness probes.
    static Result<PgConnection> open(std::string_view url, std::chrono::seconds connect_timeout);

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
    // How many times this connection was re-opened after it broke.
    std::uint64_t reconnects() const { return reconnects_; }

private:
    explicit PgConnection(pg_conn* conn);
    Error error(std::string_view doing, pg_result* result) const;
    Error unavailable(std::string_view why) const;
    // Before a statement: notices a connection the server closed while it was idle, and re-opens a
    // broken one when the backoff allows. DATABASE_UNAVAILABLE when it stays broken.
    Status ensure_usable();
    // After a statement: remembers whether a transaction is open and which session settings to restore.
    void after_statement(std::string_view sql, bool succeeded);
    pg_conn* conn_ = nullptr;
    std::string target_;
    bool in_transaction_ = false;
    std::vector<std::string> session_settings_;
    std::chrono::milliseconds backoff_{0};
    std::chrono::steady_clock::time_point next_attempt_{};
    std::uint64_t reconnects_ = 0;
};

// True for DATABASE_UNAVAILABLE: the server cannot be reached now; the request may be retried.
bool is_unavailable(const Error& error);

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
