#include "task_store.hpp"

#include "../common/stored_records.hpp"
#include "task_file_import.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

namespace skillhost_builtin::tasks {

using skillhost::Json;
using skillhost::Record;
using skillhost::SkillError;

namespace {

constexpr const char* kTasks = "tasks";
// How often an update or a delete reads the task again after another writer changed it first.
constexpr int kConflictAttempts = 8;

int status_rank(const std::string& status) {
    if (status == "in_progress") return 0;
    if (status == "open") return 1;
    if (status == "done") return 2;
    return 3;
}

int priority_rank(const std::string& priority) {
    if (priority == "high") return 0;
    if (priority == "medium") return 1;
    return 2;
}

std::optional<std::string> optional_text(const Json& value, std::string_view name) {
    const Json* v = value.find(name);
    if (!v || v->is_null()) return std::nullopt;
    return v->as_string();
}

// Sleeps a random 0 to 2^attempt milliseconds (at most 64).
void back_off(int attempt) {
    thread_local std::minstd_rand random{std::random_device{}()};
    const int most = 1 << std::min(attempt, 6);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, most)(random)));
}

[[noreturn]] void throw_too_many_conflicts(std::int64_t id) {
    throw SkillError("TASK_BUSY",
                     "task " + std::to_string(id) + " was changed by other calls " + std::to_string(kConflictAttempts) +
                         " times while this call tried to write it; retry in a moment",
                     Json::object({{"id", id}, {"attempts", kConflictAttempts}}));
}

}  // namespace

void throw_task_not_found(std::int64_t id) {
    throw SkillError("TASK_NOT_FOUND",
                     "there is no task with id " + std::to_string(id) +
                         "; look the task up with task_find or task_list to get its id",
                     Json::object({{"id", id}}));
}

std::string task_key(std::int64_t id) {
    return record_key(id);
}

Json task_value(const Task& task) {
    Json tags = Json::array();
    for (const auto& t : task.tags) tags.push_back(t);
    Json value = Json::object({{"title", task.title},
                               {"notes", task.notes},
                               {"status", task.status},
                               {"priority", task.priority},
                               {"tags", tags},
                               {"created_at", task.created_at},
                               {"updated_at", task.updated_at}});
    value["due"] = task.due ? Json(*task.due) : Json();
    value["completed_at"] = task.completed_at ? Json(*task.completed_at) : Json();
    return value;
}

Task task_from_record(const Record& record) {
    try {
        Task t;
        t.id = std::stoll(record.key);
        const Json& v = record.value;
        t.title = v["title"].as_string();
        t.notes = v.string_or("notes", "");
        t.status = v["status"].as_string();
        t.priority = v["priority"].as_string();
        if (const Json* tags = v.find("tags"); tags && tags->is_array())
            for (const Json& tag : tags->as_array()) t.tags.push_back(tag.as_string());
        t.created_at = v.string_or("created_at", "");
        t.updated_at = v.string_or("updated_at", "");
        t.due = optional_text(v, "due");
        t.completed_at = optional_text(v, "completed_at");
        return t;
    } catch (const std::exception& e) {
        throw SkillError("TASK_RECORD_INVALID",
                         "the stored record of task '" + record.key + "' is not a task (" + e.what() +
                             "); it was written by something other than the tasks plugin",
                         Json::object({{"key", record.key}}));
    }
}

bool displayed_before(const Task& a, const Task& b) {
    // The order of the SQL the file-based store used: status, priority, `due IS NULL`, due, id.
    if (int x = status_rank(a.status), y = status_rank(b.status); x != y) return x < y;
    if (int x = priority_rank(a.priority), y = priority_rank(b.priority); x != y) return x < y;
    if (a.due.has_value() != b.due.has_value()) return a.due.has_value();
    if (a.due && *a.due != *b.due) return *a.due < *b.due;
    return a.id < b.id;
}

TaskStore::TaskStore(const skillhost::Call& call)
    : storage_(require_storage(call, "tasks", "tasks")), retry_keys_(storage_) {
    import_task_file_once(call, storage_);
}

std::optional<TaskStore::Stored> TaskStore::read(std::int64_t id) {
    auto record = storage_.get(kTasks, task_key(id));
    if (!record) return std::nullopt;
    return Stored{task_from_record(*record), record->version};
}

std::optional<Task> TaskStore::get(std::int64_t id) {
    auto stored = read(id);
    if (!stored) return std::nullopt;
    return std::move(stored->task);
}

std::vector<Task> TaskStore::read_all() {
    std::vector<Task> out;
    for (const auto& record : list_all(storage_, kTasks, "tasks")) out.push_back(task_from_record(record));
    return out;
}

std::vector<Task> TaskStore::list(const TaskFilter& filter, std::int64_t& total) {
    std::vector<Task> matching;
    for (auto& t : read_all()) {
        if (filter.status && t.status != *filter.status) continue;
        if (filter.priority && t.priority != *filter.priority) continue;
        if (filter.tag && std::find(t.tags.begin(), t.tags.end(), *filter.tag) == t.tags.end()) continue;
        if (!filter.status && !filter.include_completed && t.status != "open" && t.status != "in_progress") continue;
        matching.push_back(std::move(t));
    }
    std::sort(matching.begin(), matching.end(), displayed_before);
    total = static_cast<std::int64_t>(matching.size());
    if (filter.limit >= 0 && static_cast<std::uint64_t>(filter.limit) < matching.size())
        matching.resize(static_cast<std::size_t>(filter.limit));
    return matching;
}

std::vector<Task> TaskStore::all(bool include_completed) {
    std::vector<Task> out;
    for (auto& t : read_all())
        if (include_completed || t.status == "open" || t.status == "in_progress") out.push_back(std::move(t));
    std::sort(out.begin(), out.end(), displayed_before);
    return out;
}

Task TaskStore::create(Task task) {
    task.id = create_record(storage_, kTasks, task_value(task));
    return task;
}

Task TaskStore::create_once(Task task, const std::string& retry_key, bool& repeated) {
    const RetryKeys::Created created = retry_keys_.create_once(kTasks, retry_key, task_value(task), "TASK_BUSY");
    repeated = created.repeated;
    task.id = created.id;
    if (created.repeated) {
        if (auto existing = get(task.id)) return *existing;
    }
    return task;  // created now, or created then and deleted since: what was created
}

std::optional<Task> TaskStore::change(std::int64_t id, AnswerOnce* once, const Answer& answer,
                                      const std::function<Json(Task&, std::int64_t)>& operation) {
    for (int attempt = 0; attempt < kConflictAttempts; ++attempt) {
        if (once) {
            if (auto earlier = retry_keys_.find(once->key)) {
                once->earlier = earlier->string_or("answer", "");
                return std::nullopt;
            }
        }
        auto stored = read(id);
        if (!stored) return std::nullopt;
        Task task = std::move(stored->task);
        Json write = operation(task, stored->version);
        Json operations =
            once ? retry_keys_.remember(once->key, Json::object({{"answer", answer(task)}})) : Json::array();
        auto& list = operations.as_array();
        list.insert(list.begin(), std::move(write));
        try {
            storage_.batch(operations);
            return task;
        } catch (const SkillError& e) {
            // Changed or deleted since it was read (or the key was acted on meanwhile): read again,
            // after a random pause that grows with each conflict, so writers racing for one task
            // fall out of step instead of one of them losing every round.
            if (!is_storage_conflict(e)) throw;
            back_off(attempt);
        }
    }
    throw_too_many_conflicts(id);
}

std::optional<Task> TaskStore::update(std::int64_t id, const std::function<void(Task&)>& edit, AnswerOnce* once,
                                      const Answer& answer) {
    return change(id, once, answer, [&](Task& task, std::int64_t version) {
        edit(task);
        return Json::object({{"op", "put"},
                             {"collection", kTasks},
                             {"key", task_key(id)},
                             {"value", task_value(task)},
                             {"expected_version", version}});
    });
}

std::optional<Task> TaskStore::remove(std::int64_t id, AnswerOnce* once, const Answer& answer) {
    return change(id, once, answer, [&](Task&, std::int64_t version) {
        return Json::object(
            {{"op", "remove"}, {"collection", kTasks}, {"key", task_key(id)}, {"expected_version", version}});
    });
}

}  // namespace skillhost_builtin::tasks
