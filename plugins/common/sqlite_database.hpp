// A thin RAII layer over SQLite for the built-in plugins. Failures become skillhost::SkillError
// values (STORAGE_ERROR / STORAGE_BUSY) so a skill never leaks a raw SQLite message without context.
#pragma once

#include <skillhost/skill.hpp>

#include <sqlite3.h>

#include <chrono>
#include <cstring>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

namespace skillhost_builtin {

// What the operating system said under SQLite's message (" (Permission denied)"), or nothing: the
// difference between a full disk, a read-only file system and lost permissions is what a user acts on.
inline std::string system_reason(sqlite3* db) {
    const int error_number = db ? sqlite3_system_errno(db) : 0;
    return error_number == 0 ? std::string() : " (" + std::string(std::strerror(error_number)) + ")";
}

[[noreturn]] inline void throw_storage_error(sqlite3* db, int rc, std::string_view what, std::string_view file) {
    std::string detail = std::string(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)) + system_reason(db);
    bool busy = rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
    std::string message = std::string(what) + " failed for database '" + std::string(file) + "': " + detail +
                          (busy ? "; another call holds the database, retry in a moment"
                                : "; check that the data directory is writable and the disk is not full");
    throw skillhost::SkillError(busy ? "STORAGE_BUSY" : "STORAGE_ERROR", message,
                                skillhost::Json::object({{"database", std::string(file)},
                                                         {"sqlite_code", db ? sqlite3_extended_errcode(db) : rc},
                                                         {"sqlite_message", detail}}));
}

class Statement {
public:
    Statement(sqlite3* db, std::string_view sql, std::string file) : db_(db), file_(std::move(file)) {
        int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
        if (rc != SQLITE_OK) throw_storage_error(db_, rc, "preparing a query", file_);
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int index, std::string_view text) {
        check(sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
        return *this;
    }
    Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
    Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
    Statement& bind(int index, std::int64_t value) {
        check(sqlite3_bind_int64(stmt_, index, value));
        return *this;
    }
    Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind_null(int index) {
        check(sqlite3_bind_null(stmt_, index));
        return *this;
    }

    // True while a row is available.
    bool step() {
        int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        throw_storage_error(db_, rc, "running a query", file_);
    }
    void run() {
        while (step()) {}
    }
    void reset() {
        sqlite3_reset(stmt_);
        sqlite3_clear_bindings(stmt_);
    }

    bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
    std::int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
    double real(int col) const { return sqlite3_column_double(stmt_, col); }
    std::string text(int col) const {
        const unsigned char* p = sqlite3_column_text(stmt_, col);
        return p ? std::string(reinterpret_cast<const char*>(p),
                               static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
                 : std::string();
    }

private:
    void check(int rc) {
        if (rc != SQLITE_OK) throw_storage_error(db_, rc, "binding a query parameter", file_);
    }
    sqlite3* db_;
    sqlite3_stmt* stmt_ = nullptr;
    std::string file_;
};

// One connection per call: each call opens the calling user's own file, so users can never see
// each other's rows, and concurrency is left to SQLite's WAL locking.
class Database {
public:
    explicit Database(std::string file) : file_(std::move(file)) {
        int rc = sqlite3_open_v2(file_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
        if (rc != SQLITE_OK) {
            std::string msg = std::string(db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc)) + system_reason(db_);
            sqlite3_close(db_);
            db_ = nullptr;
            throw skillhost::SkillError("STORAGE_ERROR",
                                        "could not open database '" + file_ + "': " + msg +
                                            "; check that the plugin data directory exists and is writable",
                                        skillhost::Json::object({{"database", file_}, {"sqlite_code", rc}}));
        }
        // The busy timeout comes first: switching to WAL itself needs a lock another call may hold.
        sqlite3_busy_timeout(db_, 10000);
        try {
            switch_to_wal();
            exec("PRAGMA synchronous=NORMAL");
            exec("PRAGMA foreign_keys=ON");
        } catch (...) {
            // A file that is not a database fails here; the destructor will not run, so close now.
            sqlite3_close(db_);
            db_ = nullptr;
            throw;
        }
    }
    ~Database() { sqlite3_close(db_); }
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // Two processes opening a new database at once: SQLite answers the second one's switch to WAL
    // with SQLITE_BUSY at once, without the busy handler (waiting could deadlock), so it is retried
    // here, for about as long as the busy timeout.
    void switch_to_wal() {
        for (int attempt = 0;; ++attempt) {
            int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
            if (rc == SQLITE_OK) return;
            if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || attempt >= 500)
                throw_storage_error(db_, rc, "executing 'PRAGMA journal_mode=WAL'", file_);
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }

    void exec(std::string_view sql) {
        std::string text(sql);
        char* err = nullptr;
        int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
        sqlite3_free(err);
        if (rc != SQLITE_OK) throw_storage_error(db_, rc, "executing '" + text.substr(0, 40) + "'", file_);
    }
    Statement prepare(std::string_view sql) { return Statement(db_, sql, file_); }
    std::int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
    int changes() const { return sqlite3_changes(db_); }
    const std::string& file() const { return file_; }

private:
    std::string file_;
    sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE takes the write lock up front, so two writers queue on the busy timeout instead
// of failing with a lock upgrade deadlock. Rolls back unless commit() was reached.
class WriteTransaction {
public:
    explicit WriteTransaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
    ~WriteTransaction() {
        if (!done_) {
            try {
                db_.exec("ROLLBACK");
            } catch (...) {}
        }
    }
    WriteTransaction(const WriteTransaction&) = delete;
    WriteTransaction& operator=(const WriteTransaction&) = delete;
    void commit() {
        db_.exec("COMMIT");
        done_ = true;
    }

private:
    Database& db_;
    bool done_ = false;
};

// The database file inside the call's private data directory.
inline std::string database_path(const skillhost::Call& call, std::string_view file_name) {
    std::string dir(call.data_dir());
    if (dir.empty())
        throw skillhost::SkillError("NO_DATA_DIR",
                                    "the host gave this call no data directory; run the skill through skillhost, "
                                    "which creates one per user and plugin");
    if (dir.back() != '/') dir += '/';
    return dir + std::string(file_name);
}

}  // namespace skillhost_builtin
