// The `tasks` plugin: a per-user task list (task_list, task_find, task_create, task_update,
// task_delete) kept in the host's storage ("skillhost.storage/1", task_store.hpp), so every instance
// of a scaled-out host serves the same tasks with the same ids.
#include "task_ranking.hpp"
#include "task_store.hpp"

#include <skillhost/skill.hpp>

namespace {

using skillhost::Call;
using skillhost::Json;
using skillhost::SkillError;
using namespace skillhost_builtin::tasks;

Json task_array(const std::vector<Task>& tasks) {
    Json out = Json::array();
    for (const auto& t : tasks) out.push_back(t.to_json());
    return out;
}

std::optional<std::string> optional_string(const Json& args, std::string_view key) {
    const Json* v = args.find(key);
    if (!v || v->is_null()) return std::nullopt;
    return v->as_string();
}

Json task_list(const Call& call, const Json& args) {
    TaskFilter filter;
    if (auto status = optional_string(args, "status")) filter.status = normalize_status(*status);
    filter.priority = optional_string(args, "priority");
    if (auto tag = optional_string(args, "tag")) {
        auto tags = normalize_tags(Json::array({*tag}));
        if (!tags.empty()) filter.tag = tags.front();
    }
    filter.include_completed = args.bool_or("include_completed", false);
    filter.limit = args.int_or("limit", 50);
    TaskStore store(call);
    std::int64_t total = 0;
    auto tasks = store.list(filter, total);
    return Json::object({{"tasks", task_array(tasks)},
                         {"count", static_cast<std::int64_t>(tasks.size())},
                         {"total", total},
                         {"truncated", total > static_cast<std::int64_t>(tasks.size())}});
}

Json task_find(const Call& call, const Json& args) {
    const std::string query = args["query"].as_string();
    if (query_terms(query).empty())
        throw SkillError("INVALID_QUERY",
                         "the query '" + query +
                             "' contains no words to search for; pass words from the task's "
                             "title, notes or tags",
                         Json::object({{"query", query}}));
    TaskStore store(call);
    const auto tasks = store.all(args.bool_or("include_completed", true));
    const auto ranked = rank_tasks(tasks, query);
    const auto limit = static_cast<std::size_t>(args.int_or("limit", 10));
    Json results = Json::array();
    for (std::size_t i = 0; i < ranked.size() && i < limit; ++i) {
        Json item = ranked[i].task->to_json();
        item["score"] = ranked[i].score;
        Json fields = Json::array();
        for (const auto& f : ranked[i].matched_fields) fields.push_back(f);
        item["matched"] = fields;
        results.push_back(std::move(item));
    }
    return Json::object({{"query", query},
                         {"tasks", results},
                         {"count", static_cast<std::int64_t>(results.size())},
                         {"total_matches", static_cast<std::int64_t>(ranked.size())}});
}

// The call's idempotency key when the call may be retried (a run's step, an approval, a client's
// Idempotency-Key); empty for a one-off call.
std::string retry_key(const Call& call) {
    const std::string key = call.idempotency_key();
    return key == call.call_id() ? std::string() : key;
}

Json task_create(const Call& call, const Json& args) {
    Task task;
    task.title = args["title"].as_string();
    task.notes = args.string_or("notes", "");
    task.priority = args.string_or("priority", "medium");
    task.tags = normalize_tags(args["tags"]);
    if (auto due = optional_string(args, "due"); due && !due->empty()) task.due = normalize_due(*due);
    task.created_at = task.updated_at = utc_now_iso();
    TaskStore store(call);
    // A call that may be retried (a run's step, an approval, a client's Idempotency-Key) creates its
    // task once; the retry is answered with that task.
    const std::string key = retry_key(call);
    if (!key.empty()) {
        bool repeated = false;
        Task stored = store.create_once(std::move(task), key, repeated);
        // created: false when the task is the one an earlier attempt created.
        return Json::object({{"task", stored.to_json()}, {"created", !repeated}});
    }
    Task stored = store.create(std::move(task));
    return Json::object({{"task", stored.to_json()}, {"created", true}});
}

Json task_update(const Call& call, const Json& args) {
    const std::int64_t id = args["id"].as_int();
    // Validate everything before touching the database, so a bad field changes nothing.
    std::optional<std::string> status;
    if (auto s = optional_string(args, "status")) status = normalize_status(*s);
    std::optional<std::optional<std::string>> due;
    if (auto d = optional_string(args, "due")) due = d->empty() ? std::nullopt : std::optional(normalize_due(*d));
    std::optional<std::vector<std::string>> tags;
    if (args.contains("tags") && !args["tags"].is_null()) tags = normalize_tags(args["tags"]);
    auto title = optional_string(args, "title");
    auto notes = optional_string(args, "notes");
    auto priority = optional_string(args, "priority");
    if (!status && !due && !tags && !title && !notes && !priority)
        throw SkillError("NOTHING_TO_UPDATE",
                         "task_update needs at least one field to change: title, status, priority, tags, notes or due",
                         Json::object({{"id", id}}));

    Json changed = Json::array();
    TaskStore store(call);
    const auto answer = [&](const Task& t) { return Json::object({{"task", t.to_json()}, {"changed", changed}}); };
    AnswerOnce once{retry_key(call), std::nullopt};
    auto updated = store.update(
        id,
        [&](Task& t) {
            changed = Json::array();  // applied again when another call wrote the task first
            auto set = [&](std::string& field, const std::optional<std::string>& value, const char* name) {
                if (value && *value != field) {
                    field = *value;
                    changed.push_back(name);
                }
            };
            set(t.title, title, "title");
            set(t.notes, notes, "notes");
            set(t.priority, priority, "priority");
            if (status && *status != t.status) {
                t.status = *status;
                changed.push_back("status");
                if (t.status == "done")
                    t.completed_at = utc_now_iso();
                else
                    t.completed_at.reset();
            }
            if (tags && *tags != t.tags) {
                t.tags = *tags;
                changed.push_back("tags");
            }
            if (due && *due != t.due) {
                t.due = *due;
                changed.push_back("due");
            }
            t.updated_at = utc_now_iso();
        },
        once.key.empty() ? nullptr : &once, [&](const Task& t) { return answer(t).dump(); });
    // A retry of an update that was done: the answer it gave then (the fields it changed).
    if (once.earlier) return Json::parse(*once.earlier);
    if (!updated) throw_task_not_found(id);
    return answer(*updated);
}

Json task_delete(const Call& call, const Json& args) {
    const std::int64_t id = args["id"].as_int();
    TaskStore store(call);
    const auto answer = [](const Task& t) { return Json::object({{"deleted", true}, {"task", t.to_json()}}); };
    AnswerOnce once{retry_key(call), std::nullopt};
    auto removed =
        store.remove(id, once.key.empty() ? nullptr : &once, [&](const Task& t) { return answer(t).dump(); });
    // A retry of a delete that was done: the task it deleted then, not TASK_NOT_FOUND.
    if (once.earlier) return Json::parse(*once.earlier);
    if (!removed) throw_task_not_found(id);
    return answer(*removed);
}

}  // namespace

SKILLHOST_PLUGIN("tasks", "1.0.0", SKILLHOST_SKILL("task_list", task_list), SKILLHOST_SKILL("task_find", task_find),
                 SKILLHOST_SKILL("task_create", task_create), SKILLHOST_SKILL("task_update", task_update),
                 SKILLHOST_SKILL("task_delete", task_delete))
