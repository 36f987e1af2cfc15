#include "db/sqlite_connection.hpp"
#include "db/error_codes.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

namespace skillhost::db {

Result<SqliteConnection> SqliteConnection::open(const std::filesystem::path& file,
                                                std::chrono::milliseconds busy_timeout) {
    std::error_code ec;
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
    if (ec) {
        Error error{errors::kDatabaseError,
                    "cannot create the directory " + file.parent_path().string() +
                        " for the database: " + ec.message() + "; check the home directory's permissions",
                    {},
                    {}};
        error.details["file"] = file.string();
        return error;
    }
    sqlite3* db = nullptr;
    const int rc =
        sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    SqliteConnection connection(db, file);
    if (rc != SQLITE_OK) return connection.error("opening the database");
    sqlite3_busy_timeout(db, static_cast<int>(busy_timeout.count()));
    // Switching a new database to WAL needs an exclusive lock, and SQLite answers SQLITE_BUSY at once,
    // without its busy handler, when another process is opening the same new file (waiting there could
    // deadlock). So the switch is retried here, within the same busy timeout.
    const auto give_up_at = std::chrono::steady_clock::now() + busy_timeout;
    for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(50))) {
        auto st = connection.exec("PRAGMA journal_mode=WAL");
        if (st) break;
        const int code = sqlite3_errcode(db) & 0xff;
        if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || std::chrono::steady_clock::now() >= give_up_at)
            return st.error();
        std::this_thread::sleep_for(pause);
    }
    if (auto st = connection.exec("PRAGMA synchronous=FULL"); !st) return st.error();
    return connection;
}

SqliteConnection::SqliteConnection(SqliteConnection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), file_(std::move(other.file_)) {}

SqliteConnection& SqliteConnection::operator=(SqliteConnection&& other) noexcept {
    if (this != &other) {
        if (db_ != nullptr) sqlite3_close_v2(db_);
        db_ = std::exchange(other.db_, nullptr);
        file_ = std::move(other.file_);
    }
    return *this;
}

SqliteConnection::~SqliteConnection() {
    if (db_ != nullptr) sqlite3_close_v2(db_);
}

Status SqliteConnection::exec(std::string_view sql) {
    char* message = nullptr;
    const int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message);
    sqlite3_free(message);
    if (rc != SQLITE_OK) return error("running `" + std::string(sql) + "`");
    return {};
}

namespace {

// What a user can do something about, told apart from SQLite's code and the errno under it.
std::string_view storage_cause(int code, int system_errno) {
    const int primary = code & 0xff;
    if (primary == SQLITE_FULL || system_errno == ENOSPC || system_errno == EDQUOT) return storage_cause_disk_full;
    if (primary == SQLITE_READONLY || system_errno == EROFS) return storage_cause_read_only;
    if (system_errno == EACCES || system_errno == EPERM || primary == SQLITE_PERM || primary == SQLITE_AUTH)
        return storage_cause_permission;
    return {};
}

// The errno a small write beside the database gets now (0: writing works). SQLite's own errno can
// be stale, or EIO from an fsync after the file system turned read-only; the file system says why.
int write_probe_errno(const std::filesystem::path& dir) {
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) return errno == EOPNOTSUPP || errno == EISDIR ? 0 : errno;  // no O_TMPFILE: cannot tell
    const int written = ::write(fd, "x", 1) == 1 ? 0 : errno;
    ::close(fd);
    return written;
}

}  // namespace

Error SqliteConnection::error(std::string_view doing) const {
    const char* message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    const int code = db_ != nullptr ? sqlite3_extended_errcode(db_) : SQLITE_NOMEM;
    int system_errno = db_ != nullptr ? sqlite3_system_errno(db_) : 0;
    std::string_view cause = storage_cause(code, system_errno);
    const int primary = code & 0xff;
    if (cause.empty() && (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN)) {
        if (const int probed = write_probe_errno(file_.parent_path()); probed != 0) {
            system_errno = probed;
            cause = storage_cause(code, probed);
        }
        if (cause.empty() && primary == SQLITE_IOERR) cause = storage_cause_io_error;
    }
    std::string what = message;
    if (system_errno != 0 && !cause.empty()) what += std::string(" (") + std::strerror(system_errno) + ")";
    std::string advice = "; check that the home directory is writable and not on a network file system";
    if (cause == storage_cause_disk_full) {
        advice = "; the disk holding it is full: free space there, then retry";
    } else if (cause == storage_cause_read_only) {
        advice =
            "; its file system is read-only: remount it read-write (check the system log for I/O errors), "
            "then retry";
    } else if (cause == storage_cause_permission) {
        advice = "; the daemon may not write it: fix the permissions of the home directory and its files";
    } else if (cause == storage_cause_io_error) {
        advice =
            "; the disk or file system reported an I/O error: check the system log (`dmesg`) and the disk, "
            "then retry; `skillhost db check` tells whether the database is intact";
    }
    // A cause the operator can fix (disk, file system, permissions): unavailable until then.
    Error error{cause.empty() ? errors::kDatabaseError : errors::kDatabaseErrorUnavailable,
                "database " + file_.string() + ": " + std::string(doing) + " failed: " + what + advice,
                {},
                {}};
    error.details["file"] = file_.string();
    error.details["sqlite_message"] = message;
    if (db_ != nullptr) error.details["sqlite_code"] = code;
    if (system_errno != 0) error.details["errno"] = std::strerror(system_errno);
    if (!cause.empty()) error.details["cause"] = cause;
    return error;
}

SqliteStatement::SqliteStatement(const SqliteConnection& connection, std::string_view sql) {
    if (sqlite3_prepare_v2(connection.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
        SQLITE_OK) {
        sqlite3_finalize(stmt_);
        stmt_ = nullptr;
    }
}

SqliteStatement::~SqliteStatement() {
    sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
    sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t number) {
    sqlite3_bind_int64(stmt_, index, number);
    return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
    sqlite3_bind_null(stmt_, index);
    return *this;
}

int SqliteStatement::step() {
    return stmt_ == nullptr ? SQLITE_MISUSE : sqlite3_step(stmt_);
}

std::string SqliteStatement::text(int column) const {
    const auto* data = sqlite3_column_text(stmt_, column);
    if (data == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(data),
                       static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::int64_t SqliteStatement::integer(int column) const {
    return sqlite3_column_int64(stmt_, column);
}

bool SqliteStatement::is_null(int column) const {
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int SqliteStatement::columns() const {
    return stmt_ == nullptr ? 0 : sqlite3_column_count(stmt_);
}

SqliteTransaction::SqliteTransaction(SqliteConnection& connection) : connection_(connection) {
    begun_ = connection_.exec("BEGIN IMMEDIATE");
    open_ = begun_.ok();
}

SqliteTransaction::~SqliteTransaction() {
    if (open_) (void)connection_.exec("ROLLBACK");
}

Status SqliteTransaction::commit() {
    open_ = false;
    if (auto st = connection_.exec("COMMIT"); !st) {
        (void)connection_.exec("ROLLBACK");
        return st;
    }
    return {};
}

}  // namespace skillhost::db
