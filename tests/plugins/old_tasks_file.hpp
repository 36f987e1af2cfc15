// A tasks.db as the tasks plugin wrote it before it kept its tasks in the host's storage: the
// schema and the statements of that plugin's task_store.cpp (schema version 1, WAL), so the import
// is tested on the file an existing home holds.
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

// Writes `tasks` (with their ids) into a new tasks.db at `file`; then deletes the tasks whose ids
// are in `deleted_afterwards` (as a user deleting tasks did: AUTOINCREMENT keeps their ids used).
inline void write_old_tasks_db(const std::filesystem::path& file, const std::vector<OldTask>& tasks,
                               const std::vector<std::int64_t>& deleted_afterwards = {}) {
    std::filesystem::create_directories(file.parent_path());
    sqlite3* db = nullptr;
    if (sqlite3_open(file.c_str(), &db) != SQLITE_OK) throw std::runtime_error("cannot create " + file.string());
    auto exec = [&](const std::string& sql) {
        char* error = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
            const std::string message = error ? error : "?";
            sqlite3_free(error);
            sqlite3_close(db);
            throw std::runtime_error(sql.substr(0, 60) + ": " + message);
        }
    };
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
    sqlite3_close(db);
}

}  // namespace skillhost::testing
