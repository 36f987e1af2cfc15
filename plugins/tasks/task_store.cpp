#include "task_store.hpp"

#include "../common/created_by_key.hpp"

namespace skillhost_builtin::tasks {

using skillhost::Json;
using skillhost::SkillError;

namespace {

constexpr const char* kSchema = R"sql(
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
)sql";

// Tags come back as one column joined by the unit separator (0x1f); normalize_tags strips control
// characters, so it never occurs inside a tag.
constexpr const char* kColumns =
    "t.id, t.title, t.notes, t.status, t.priority, t.due, t.created_at, t.updated_at, t.completed_at, "
    "(SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tags WHERE task_id = t.id ORDER BY position))";

constexpr const char* kOrder =
    " ORDER BY CASE t.status WHEN 'in_progress' THEN 0 WHEN 'open' THEN 1 WHEN 'done' THEN 2 ELSE 3 END,"
    " CASE t.priority WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, t.due IS NULL, t.due, t.id";

}  // namespace

void throw_task_not_found(std::int64_t id) {
    throw SkillError("TASK_NOT_FOUND",
                     "there is no task with id " + std::to_string(id) +
                         "; look the task up with task_find or task_list to get its id",
                     Json::object({{"id", id}}));
}

TaskStore::TaskStore(const skillhost::Call& call) : db_(database_path(call, "tasks.db")) {
    ensure_schema();
}

void TaskStore::ensure_schema() {
    {
        // The read must be finished before BEGIN IMMEDIATE: a connection that still holds a read
        // snapshot gets SQLITE_BUSY at once (the busy timeout is skipped to avoid a deadlock).
        Statement version = db_.prepare("PRAGMA user_version");
        if (version.step() && version.int64(0) >= 1) return;
    }
    WriteTransaction tx(db_);  // every statement in the schema is IF NOT EXISTS: racing creators are fine
    db_.exec(kSchema);
    tx.commit();
}

std::vector<Task> TaskStore::read_tasks(Statement& stmt) {
    std::vector<Task> out;
    while (stmt.step()) {
        Task t;
        t.id = stmt.int64(0);
        t.title = stmt.text(1);
        t.notes = stmt.text(2);
        t.status = stmt.text(3);
        t.priority = stmt.text(4);
        if (!stmt.is_null(5)) t.due = stmt.text(5);
        t.created_at = stmt.text(6);
        t.updated_at = stmt.text(7);
        if (!stmt.is_null(8)) t.completed_at = stmt.text(8);
        std::string joined = stmt.text(9);
        std::size_t start = 0;
        while (!joined.empty() && start <= joined.size()) {
            std::size_t end = joined.find('\x1f', start);
            if (end == std::string::npos) end = joined.size();
            t.tags.push_back(joined.substr(start, end - start));
            start = end + 1;
        }
        out.push_back(std::move(t));
    }
    return out;
}

std::optional<Task> TaskStore::get(std::int64_t id) {
    Statement stmt = db_.prepare(std::string("SELECT ") + kColumns + " FROM tasks t WHERE t.id = ?1");
    stmt.bind(1, id);
    auto tasks = read_tasks(stmt);
    if (tasks.empty()) return std::nullopt;
    return std::move(tasks.front());
}

std::vector<Task> TaskStore::list(const TaskFilter& filter, std::int64_t& total) {
    const std::string where =
        " FROM tasks t WHERE (?1 IS NULL OR t.status = ?1) AND (?2 IS NULL OR t.priority = ?2)"
        " AND (?3 IS NULL OR EXISTS (SELECT 1 FROM task_tags g WHERE g.task_id = t.id AND g.tag = ?3))"
        " AND (?1 IS NOT NULL OR ?4 = 1 OR t.status IN ('open', 'in_progress'))";
    auto bind = [&](Statement& s) {
        if (filter.status)
            s.bind(1, *filter.status);
        else
            s.bind_null(1);
        if (filter.priority)
            s.bind(2, *filter.priority);
        else
            s.bind_null(2);
        if (filter.tag)
            s.bind(3, *filter.tag);
        else
            s.bind_null(3);
        s.bind(4, filter.include_completed ? 1 : 0);
    };
    Statement count = db_.prepare("SELECT count(*)" + where);
    bind(count);
    total = count.step() ? count.int64(0) : 0;
    Statement stmt = db_.prepare(std::string("SELECT ") + kColumns + where + kOrder + " LIMIT ?5");
    bind(stmt);
    stmt.bind(5, filter.limit);
    return read_tasks(stmt);
}

std::vector<Task> TaskStore::all(bool include_completed) {
    Statement stmt = db_.prepare(std::string("SELECT ") + kColumns +
                                 " FROM tasks t WHERE ?1 = 1 OR t.status IN ('open', 'in_progress')" + kOrder);
    stmt.bind(1, include_completed ? 1 : 0);
    return read_tasks(stmt);
}

void TaskStore::write_tags(std::int64_t id, const std::vector<std::string>& tags) {
    Statement clear = db_.prepare("DELETE FROM task_tags WHERE task_id = ?1");
    clear.bind(1, id).run();
    Statement insert = db_.prepare("INSERT INTO task_tags (task_id, tag, position) VALUES (?1, ?2, ?3)");
    int position = 0;
    for (const auto& tag : tags) {
        insert.reset();
        insert.bind(1, id).bind(2, tag).bind(3, position++).run();
    }
}

void TaskStore::insert_in_transaction(Task& task) {
    Statement insert = db_.prepare(
        "INSERT INTO tasks (title, notes, status, priority, due, created_at, updated_at, completed_at)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    insert.bind(1, task.title).bind(2, task.notes).bind(3, task.status).bind(4, task.priority);
    if (task.due)
        insert.bind(5, *task.due);
    else
        insert.bind_null(5);
    insert.bind(6, task.created_at).bind(7, task.updated_at);
    if (task.completed_at)
        insert.bind(8, *task.completed_at);
    else
        insert.bind_null(8);
    insert.run();
    task.id = db_.last_insert_rowid();
    write_tags(task.id, task.tags);
}

Task TaskStore::create(Task task) {
    WriteTransaction tx(db_);
    insert_in_transaction(task);
    tx.commit();
    return task;
}

Task TaskStore::create_once(Task task, const std::string& retry_key, bool& repeated) {
    repeated = false;
    {
        WriteTransaction tx(db_);
        if (auto earlier = created_for_key(db_, retry_key)) {
            tx.commit();
            repeated = true;
            task.id = *earlier;
        } else {
            insert_in_transaction(task);
            remember_created(db_, retry_key, task.id);
            tx.commit();
            return task;
        }
    }
    if (auto existing = get(task.id)) return *existing;
    return task;  // created then and deleted since: what was created
}

std::optional<Task> TaskStore::update(std::int64_t id, const std::function<void(Task&)>& edit, AnswerOnce* once,
                                      const Answer& answer) {
    WriteTransaction tx(db_);
    if (once && (once->earlier = answered_for_key(db_, once->key))) return std::nullopt;
    Statement read = db_.prepare(std::string("SELECT ") + kColumns + " FROM tasks t WHERE t.id = ?1");
    read.bind(1, id);
    auto found = read_tasks(read);
    if (found.empty()) return std::nullopt;
    Task task = std::move(found.front());
    edit(task);
    Statement stmt = db_.prepare(
        "UPDATE tasks SET title = ?2, notes = ?3, status = ?4, priority = ?5, due = ?6, updated_at = ?7,"
        " completed_at = ?8 WHERE id = ?1");
    stmt.bind(1, task.id).bind(2, task.title).bind(3, task.notes).bind(4, task.status).bind(5, task.priority);
    if (task.due)
        stmt.bind(6, *task.due);
    else
        stmt.bind_null(6);
    stmt.bind(7, task.updated_at);
    if (task.completed_at)
        stmt.bind(8, *task.completed_at);
    else
        stmt.bind_null(8);
    stmt.run();
    write_tags(task.id, task.tags);
    if (once) remember_answer(db_, once->key, answer(task));
    tx.commit();
    return task;
}

std::optional<Task> TaskStore::remove(std::int64_t id, AnswerOnce* once, const Answer& answer) {
    WriteTransaction tx(db_);
    if (once && (once->earlier = answered_for_key(db_, once->key))) return std::nullopt;
    Statement stmt = db_.prepare(std::string("SELECT ") + kColumns + " FROM tasks t WHERE t.id = ?1");
    stmt.bind(1, id);
    auto found = read_tasks(stmt);
    if (found.empty()) return std::nullopt;
    Statement del = db_.prepare("DELETE FROM tasks WHERE id = ?1");
    del.bind(1, id).run();
    if (once) remember_answer(db_, once->key, answer(found.front()));
    tx.commit();
    return std::move(found.front());
}

}  // namespace skillhost_builtin::tasks
