#include "task_file_import.hpp"

#include "../common/file_import.hpp"
#include "task_store.hpp"

#include <algorithm>

namespace skillhost_builtin::tasks {

using skillhost::Json;

namespace {

// The old file had no size limit; a record has. A task too large for one keeps the start of its
// notes and title (the longer one halved until it fits, so at most 64 halvings for any size) and
// says where the whole text is. Returns whether it was cut.
bool fit_in_a_record(Task& t) {
    if (task_value(t).dump().size() <= kMaxImportedValueBytes) return false;
    for (int step = 0; step < 64 && task_value(t).dump().size() > kMaxImportedValueBytes; ++step) {
        std::string& longer = t.notes.size() >= t.title.size() ? t.notes : t.title;
        longer = cut_utf8(longer, longer.size() / 2);
    }
    t.notes += "\n[cut when imported: the whole text is in tasks.db.migrated]";  // within the 4 KiB spare
    return true;
}

ImportedFile read_tasks(OldFile& file) {
    ImportedFile out;
    if (!file.has_table("tasks")) return out;
    const bool has_tags = file.has_table("task_tags");
    Statement stmt = file.prepare(
        std::string("SELECT t.id, t.title, t.notes, t.status, t.priority, t.due, t.created_at, t.updated_at, "
                    "t.completed_at, ") +
        (has_tags ? "(SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tags WHERE task_id = t.id "
                    "ORDER BY position))"
                  : "NULL") +
        " FROM tasks t ORDER BY t.id");
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
        t.tags = split_unit_separated(stmt.text(9));
        out.last_id = std::max(out.last_id, t.id);
        if (fit_in_a_record(t)) out.cut.push_back(t.id);
        out.records.push_back({t.id, task_value(t)});
    }
    out.last_id = std::max(out.last_id, file.sequence_of("tasks"));
    return out;
}

}  // namespace

void import_task_file_once(const skillhost::Call& call, const skillhost::Storage& storage) {
    static const FileImport import{"tasks.db", "tasks", "task", read_tasks, [](const Json& value) {
                                       // A task's creation time is the file's; no update changes it.
                                       return value.string_or("created_at", "");
                                   }};
    import_file_once(call, storage, import);
}

}  // namespace skillhost_builtin::tasks
