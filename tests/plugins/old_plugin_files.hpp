// The files the tasks and memory plugins wrote before they kept their data in the host's storage
// (tasks.db, memory.db): the schemas and statements of those plugins (schema version 1, WAL), so
// the imports are tested on the files an existing home holds.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace skillhost::testing {

struct OldTask {
    std::int64_t id = 0;
    std::string title;
    std::string status = "open";
    std::string priority = "medium";
    std::vector<std::string> tags;
    std::optional<std::string> due;
    std::optional<std::string> completed_at;
    std::string notes;
};

// An SQLite file written as an older plugin wrote it; throws on any failure (a test fixture).
class OldDatabase {
public:
    explicit OldDatabase(const std::filesystem::path& file) {
        std::filesystem::create_directories(file.parent_path());
        if (sqlite3_open(file.c_str(), &db_) != SQLITE_OK) {
            sqlite3_close(db_);
            throw std::runtime_error("cannot create " + file.string());
        }
    }
    ~OldDatabase() { sqlite3_close(db_); }
    OldDatabase(const OldDatabase&) = delete;
    OldDatabase& operator=(const OldDatabase&) = delete;

    void exec(const std::string& sql) {
        char* error = nullptr;
        if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
            const std::string message = error ? error : "?";
            sqlite3_free(error);
            throw std::runtime_error(sql.substr(0, 60) + ": " + message);
        }
    }
    sqlite3* handle() { return db_; }

private:
    sqlite3* db_ = nullptr;
};

// Writes `tasks` (with their ids) into a new tasks.db at `file`; then deletes the tasks whose ids
// are in `deleted_afterwards` (as a user deleting tasks did: AUTOINCREMENT keeps their ids used).
inline void write_old_tasks_db(const std::filesystem::path& file, const std::vector<OldTask>& tasks,
                               const std::vector<std::int64_t>& deleted_afterwards = {}) {
    OldDatabase db(file);
    auto exec = [&](const std::string& sql) { db.exec(sql); };
    auto text = [](const std::string& s) {
        std::string out = "'";
        for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
        return out + "'";
    };
    auto optional_text = [&](const std::optional<std::string>& s) { return s ? text(*s) : std::string("NULL"); };
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA foreign_keys=ON");
    exec(R"sql(
CREATE TABLE IF NOT EXISTS tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  title TEXT NOT NULL,
  notes TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('open','in_progress','done','cancelled')),
  priority TEXT NOT NULL CHECK (priority IN ('low','medium','high')),
  due TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE TABLE IF NOT EXISTS task_tags (
  task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (task_id, tag)
);
CREATE INDEX IF NOT EXISTS task_tags_by_tag ON task_tags(tag);
PRAGMA user_version = 1;
CREATE TABLE IF NOT EXISTS created_by_key (key TEXT PRIMARY KEY, row_id INTEGER NOT NULL, created_unix INTEGER NOT NULL);
)sql");
    exec("BEGIN IMMEDIATE");
    for (const OldTask& t : tasks) {
        const std::string values = std::to_string(t.id) + ", " + text(t.title) + ", " + text(t.notes) + ", " +
                                   text(t.status) + ", " + text(t.priority) + ", " + optional_text(t.due) +
                                   ", '2026-01-02T03:04:05Z', '2026-01-02T03:04:05Z', " + optional_text(t.completed_at);
        const std::string columns = "id, title, notes, status, priority, due, created_at, updated_at, completed_at";
        exec("INSERT INTO tasks (" + columns + ") VALUES (" + values + ")");
        int position = 0;
        for (const auto& tag : t.tags)
            exec("INSERT INTO task_tags (task_id, tag, position) VALUES (" + std::to_string(t.id) + ", " + text(tag) +
                 ", " + std::to_string(position++) + ")");
    }
    for (std::int64_t id : deleted_afterwards) exec("DELETE FROM tasks WHERE id = " + std::to_string(id));
    exec("COMMIT");
}

struct OldMemory {
    std::int64_t id;
    std::string text;
    std::string kind;
    std::string tags;  // joined by \x1f
    std::int64_t occurred_at;
};

// Writes `memories` (with their ids) into a new memory.db at `file`, with the schema and statements
// of the memory plugin that kept one (a table with an AUTOINCREMENT id, tags joined by the unit
// separator, an FTS5 index); then deletes those in `deleted_afterwards`.
inline void write_old_memory_db(const std::filesystem::path& file, const std::vector<OldMemory>& memories,
                                const std::vector<std::int64_t>& deleted_afterwards = {}) {
    OldDatabase old(file);
    sqlite3* db = old.handle();
    auto exec = [&](const std::string& sql) { old.exec(sql); };
    exec("PRAGMA journal_mode=WAL");
    exec(R"sql(
CREATE TABLE IF NOT EXISTS memories (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  text TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL CHECK (kind IN ('event','note','guidance')),
  occurred_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS memories_by_time ON memories(occurred_at);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
  text, tags, content='memories', content_rowid='id', tokenize='porter unicode61');
PRAGMA user_version = 1;
CREATE TABLE IF NOT EXISTS created_by_key (key TEXT PRIMARY KEY, row_id INTEGER NOT NULL, created_unix INTEGER NOT NULL);
)sql");
    exec("BEGIN IMMEDIATE");
    for (const OldMemory& m : memories) {
        sqlite3_stmt* insert = nullptr;
        sqlite3_prepare_v2(db,
                           "INSERT INTO memories (id, text, tags, kind, occurred_at, created_at) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, 1767225600)",
                           -1, &insert, nullptr);
        sqlite3_bind_int64(insert, 1, m.id);
        sqlite3_bind_text(insert, 2, m.text.c_str(), static_cast<int>(m.text.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 3, m.tags.c_str(), static_cast<int>(m.tags.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 4, m.kind.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert, 5, m.occurred_at);
        const int rc = sqlite3_step(insert);
        sqlite3_finalize(insert);
        if (rc != SQLITE_DONE) throw std::runtime_error("insert failed");
        exec("INSERT INTO memories_fts (rowid, text, tags) SELECT id, text, tags FROM memories WHERE id = " +
             std::to_string(m.id));
    }
    for (std::int64_t id : deleted_afterwards) exec("DELETE FROM memories WHERE id = " + std::to_string(id));
    exec("COMMIT");
}

}  // namespace skillhost::testing
