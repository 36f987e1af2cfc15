// The per-user task table: one SQLite file (WAL) in the plugin's data directory for that user.
#pragma once

#include "../common/created_by_key.hpp"
#include "../common/sqlite_database.hpp"
#include "task_model.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace skillhost_builtin::tasks {

struct TaskFilter {
    std::optional<std::string> status;  // exact canonical status
    std::optional<std::string> priority;
    std::optional<std::string> tag;
    bool include_completed = false;  // ignored when `status` is set
    std::int64_t limit = 50;
};

class TaskStore {
public:
    // Opens (creating on first use) the tasks database in `call`'s data directory.
    explicit TaskStore(const skillhost::Call& call);

    std::optional<Task> get(std::int64_t id);
    // Matching tasks in display order (in progress, open, then finished; high priority and
    // earliest due first), at most filter.limit; `total` receives the number of matches.
    std::vector<Task> list(const TaskFilter& filter, std::int64_t& total);
    std::vector<Task> all(bool include_completed);

    // Each write runs in its own IMMEDIATE transaction and returns the task as stored.
    Task create(Task task);
    // create(), once per `retry_key` (the call's idempotency key when it can be retried): a key
    // already acted on returns the task it created then, with `repeated` set, and creates nothing.
    // The key is recorded in the same transaction as the task.
    Task create_once(Task task, const std::string& retry_key, bool& repeated);
    // Reads the task, lets `edit` change it and writes it back, all in one transaction, so two
    // concurrent updates never lose each other's fields. nullopt when there is no such task.
    // With `once` (a retry key), `answer` of the changed task is recorded with the change; a key
    // acted on before sets once->earlier to that answer and changes nothing (returns nullopt).
    using Answer = std::function<std::string(const Task&)>;
    std::optional<Task> update(std::int64_t id, const std::function<void(Task&)>& edit, AnswerOnce* once = nullptr,
                               const Answer& answer = {});
    std::optional<Task> remove(std::int64_t id, AnswerOnce* once = nullptr, const Answer& answer = {});

    Database& database() { return db_; }

private:
    void ensure_schema();
    std::vector<Task> read_tasks(Statement& stmt);
    void write_tags(std::int64_t id, const std::vector<std::string>& tags);
    // Inserts `task` (and its tags) inside the caller's write transaction and sets its id.
    void insert_in_transaction(Task& task);

    Database db_;
};

// Typed error for an id that is not in the caller's task list.
[[noreturn]] void throw_task_not_found(std::int64_t id);

}  // namespace skillhost_builtin::tasks
