// The calling user's tasks, kept in the host's storage ("skillhost.storage/1"), so every instance of a
// scaled-out host sees the same tasks with the same ids:
//  - collection `tasks`: one record per task, keyed by its id zero-padded to 16 digits (keys list in
//    id order), the task's fields and tags in the value; ids come from the collection's sequence.
//  - collection `retry_keys`: what a call that may be retried (its idempotency key) created or
//    answered, written in the same batch as the change, so a retry acts once; `retry_keys.by_time`
//    indexes them by age, and keys older than 30 days are forgotten a few at a time.
//  - collection `tasks.meta`: the marker of the import of an older tasks.db (task_file_import.hpp).
#pragma once

#include "../common/stored_records.hpp"
#include "task_model.hpp"

#include <skillhost/skill.hpp>

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
    std::int64_t limit = 50;         // negative: no limit
};

// A change that is not a creation (an update, a delete) done once per retry key: the answer the
// first attempt gave is recorded with the change, in its batch, and a retry gets that answer and
// changes nothing (a delete retried after its task is gone is not TASK_NOT_FOUND).
struct AnswerOnce {
    std::string key;                     // the call's retry key
    std::optional<std::string> earlier;  // set when the key was acted on before
};

// The record key of task `id`: 16 digits, zero-padded.
std::string task_key(std::int64_t id);
// The task a record of collection `tasks` holds (its id from the key); throws TASK_RECORD_INVALID.
Task task_from_record(const skillhost::Record& record);
// The value stored for `task` (every field but the id, which is the key).
skillhost::Json task_value(const Task& task);
// True when `a` comes before `b` in display order (in progress, open, done, cancelled; high priority
// first; tasks with a due date before those without, earliest first; then by id).
bool displayed_before(const Task& a, const Task& b);

class TaskStore {
public:
    // The store of `call`'s user. Imports an older tasks.db left in the call's data directory first
    // (task_file_import.hpp). Throws STORAGE_UNAVAILABLE on a host without "skillhost.storage/1".
    explicit TaskStore(const skillhost::Call& call);

    std::optional<Task> get(std::int64_t id);
    // Matching tasks in display order, at most filter.limit; `total` receives the number of matches.
    std::vector<Task> list(const TaskFilter& filter, std::int64_t& total);
    std::vector<Task> all(bool include_completed);

    // Each write is one request (or one batch) and returns the task as stored.
    Task create(Task task);
    // create(), once per `retry_key` (the call's idempotency key when it can be retried): a key
    // already acted on returns the task it created then, with `repeated` set, and creates nothing.
    // The key is recorded in the same batch as the task.
    Task create_once(Task task, const std::string& retry_key, bool& repeated);
    // Reads the task, lets `edit` change it and writes it back only if nobody wrote it since (its
    // version), reading again and re-applying `edit` on a conflict (a bounded number of times), so two
    // concurrent updates never lose each other's fields. nullopt when there is no such task.
    // With `once` (a retry key), `answer` of the changed task is recorded with the change; a key
    // acted on before sets once->earlier to that answer and changes nothing (returns nullopt).
    using Answer = std::function<std::string(const Task&)>;
    std::optional<Task> update(std::int64_t id, const std::function<void(Task&)>& edit, AnswerOnce* once = nullptr,
                               const Answer& answer = {});
    std::optional<Task> remove(std::int64_t id, AnswerOnce* once = nullptr, const Answer& answer = {});

private:
    struct Stored {
        Task task;
        std::int64_t version = 0;
    };
    std::optional<Stored> read(std::int64_t id);
    // Every task, in key (id) order: all pages of the collection.
    std::vector<Task> read_all();
    // Reads task `id` and writes the operation `operation` builds from it (and the task's version),
    // with `once`'s key, in one batch; on a conflict reads again, at most a few times (TASK_BUSY).
    // The task as `operation` left it, or nullopt when there is none (or the key was acted on).
    std::optional<Task> change(std::int64_t id, AnswerOnce* once, const Answer& answer,
                               const std::function<skillhost::Json(Task&, std::int64_t)>& operation);

    skillhost::Storage storage_;
    RetryKeys retry_keys_;
};

// Typed error for an id that is not in the caller's task list.
[[noreturn]] void throw_task_not_found(std::int64_t id);

}  // namespace skillhost_builtin::tasks
