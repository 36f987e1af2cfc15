// A small RAII layer over SQLite for the policy stores (modes, approvals) in skillhost.db.
#pragma once

#include "base/error.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace skillhost::db {

// details.cause of a storage error a person can fix (the client is told, not only the server log).
inline constexpr std::string_view storage_cause_disk_full = "disk_full";
inline constexpr std::string_view storage_cause_read_only = "read_only";
inline constexpr std::string_view storage_cause_permission = "permission";
// The disk or file system failed a read or write (EIO, a bad sector, a lost device): nothing in
// skillhost can fix it, but it is not a bug of skillhost either, and may pass.
inline constexpr std::string_view storage_cause_io_error = "io_error";

class SqliteConnection {
public:
    // Opens (creating the file and its directory) with WAL journaling, synchronous=FULL (a committed
    // approval transition survives power loss, not just a crash) and a busy timeout so concurrent
    // processes wait for each other instead of failing.
    static Result<SqliteConnection> open(const std::filesystem::path& file,
                                         std::chrono::milliseconds busy_timeout = std::chrono::milliseconds(5000));

    SqliteConnection(SqliteConnection&&) noexcept;
    SqliteConnection& operator=(SqliteConnection&&) noexcept;
    ~SqliteConnection();

    Status exec(std::string_view sql);
    sqlite3* handle() const { return db_; }
    const std::filesystem::path& file() const { return file_; }
    // DATABASE_ERROR naming the file, what we were doing and SQLite's message; details.cause says
    // disk_full, read_only or permission when that is why.
    Error error(std::string_view doing) const;

private:
    SqliteConnection(sqlite3* db, std::filesystem::path file) : db_(db), file_(std::move(file)) {}
    sqlite3* db_ = nullptr;
    std::filesystem::path file_;
};

// A prepared statement; binds are 1-based like SQLite's, columns 0-based.
class SqliteStatement {
public:
    SqliteStatement(const SqliteConnection& connection, std::string_view sql);
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;
    ~SqliteStatement();

    bool prepared() const { return stmt_ != nullptr; }
    SqliteStatement& bind(int index, std::string_view text);
    SqliteStatement& bind(int index, std::int64_t number);
    SqliteStatement& bind_null(int index);
    // SQLITE_ROW, SQLITE_DONE or an error code.
    int step();
    std::string text(int column) const;
    std::int64_t integer(int column) const;
    bool is_null(int column) const;
    // How many columns each row has (0 for a statement that returns none).
    int columns() const;

private:
    sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed uncommitted. IMMEDIATE takes the write lock
// up front so read-then-write transitions cannot interleave between processes.
class SqliteTransaction {
public:
    explicit SqliteTransaction(SqliteConnection& connection);
    SqliteTransaction(const SqliteTransaction&) = delete;
    SqliteTransaction& operator=(const SqliteTransaction&) = delete;
    ~SqliteTransaction();

    const Status& begun() const { return begun_; }
    Status commit();

private:
    SqliteConnection& connection_;
    Status begun_;
    bool open_ = false;
};

}  // namespace skillhost::db
