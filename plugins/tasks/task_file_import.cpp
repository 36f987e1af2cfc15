#include "task_file_import.hpp"

#include "../common/sqlite_database.hpp"
#include "task_store.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <mutex>

namespace skillhost_builtin::tasks {

using skillhost::Json;
using skillhost::LogLevel;
using skillhost::SkillError;
using skillhost::Storage;

namespace {

namespace fs = std::filesystem;

constexpr const char* kMeta = "tasks.meta";
constexpr const char* kMarker = "file_import";
constexpr std::size_t kBatch = SKILLHOST_STORAGE_MAX_BATCH_OPERATIONS;

std::string host_name() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
    return name;
}

// The old file, opened without creating it: a file renamed meanwhile is not made again, empty.
class OldFile {
public:
    explicit OldFile(const std::string& path) : path_(path) {
        const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
        if (rc != SQLITE_OK) {
            const std::string detail = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
            sqlite3_close(db_);
            db_ = nullptr;
            throw SkillError("STORAGE_ERROR", "could not open the old task file '" + path + "' to import it: " + detail,
                             Json::object({{"database", path}}));
        }
        sqlite3_busy_timeout(db_, 10000);
    }
    ~OldFile() { close(); }
    OldFile(const OldFile&) = delete;
    OldFile& operator=(const OldFile&) = delete;

    void exec(const char* sql) {
        const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK) throw_storage_error(db_, rc, std::string("executing '") + sql + "'", path_);
    }
    Statement prepare(std::string_view sql) { return Statement(db_, sql, path_); }
    bool has_table(const char* name) {
        Statement s = prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
        s.bind(1, name);
        return s.step();
    }
    // Folds the write-ahead log into the file (so the renamed file holds every task) and closes.
    void checkpoint_and_close() {
        if (!db_) return;
        sqlite3_exec(db_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
        close();
    }

private:
    void close() {
        sqlite3_close(db_);
        db_ = nullptr;
    }
    std::string path_;
    sqlite3* db_ = nullptr;
};

struct FileContents {
    std::vector<Task> tasks;  // by id
    std::int64_t last_id = 0;
    std::vector<std::int64_t> cut;  // tasks whose text was cut to fit a record
};

// Values of one import batch at most (the batch's JSON also has its keys and operations).
constexpr std::size_t kBatchValueBytes = SKILLHOST_STORAGE_MAX_BATCH_BYTES / 2;
constexpr std::size_t kMaxTaskBytes = SKILLHOST_STORAGE_MAX_VALUE_BYTES - 4096;

// `text` cut to at most `bytes` bytes, never inside a UTF-8 sequence.
std::string cut_utf8(const std::string& text, std::size_t bytes) {
    if (text.size() <= bytes) return text;
    while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
    return text.substr(0, bytes);
}

// The old file had no size limit; a record has. A task too large for one keeps the start of its
// notes and title (the longer one halved until it fits, so at most 64 halvings for any size) and
// says where the whole text is. Returns whether it was cut.
bool fit_in_a_record(Task& t) {
    if (task_value(t).dump().size() <= kMaxTaskBytes) return false;
    for (int step = 0; step < 64 && task_value(t).dump().size() > kMaxTaskBytes; ++step) {
        std::string& longer = t.notes.size() >= t.title.size() ? t.notes : t.title;
        longer = cut_utf8(longer, longer.size() / 2);
    }
    t.notes += "\n[cut when imported: the whole text is in tasks.db.migrated]";  // within the 4 KiB spare
    return true;
}

FileContents read_file(OldFile& file) {
    FileContents out;
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
        // Tags were joined by the unit separator, which normalize_tags never lets into a tag.
        const std::string joined = stmt.text(9);
        for (std::size_t start = 0; !joined.empty() && start <= joined.size();) {
            std::size_t end = joined.find('\x1f', start);
            if (end == std::string::npos) end = joined.size();
            t.tags.push_back(joined.substr(start, end - start));
            start = end + 1;
        }
        out.last_id = std::max(out.last_id, t.id);
        if (fit_in_a_record(t)) out.cut.push_back(t.id);
        out.tasks.push_back(std::move(t));
    }
    if (file.has_table("sqlite_sequence")) {
        Statement seq = file.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'tasks'");
        if (seq.step()) out.last_id = std::max(out.last_id, seq.int64(0));
    }
    return out;
}

Json put_task(const Task& task) {
    return Json::object({{"op", "put"},
                         {"collection", "tasks"},
                         {"key", task_key(task.id)},
                         {"value", task_value(task)},
                         {"expected_version", 0}});
}

// What identifies a file's contents, whichever host or path it is read from: FNV-1a (64 bits) over
// its tasks as they would be stored, in id order, and its last id. An import cut short is resumed
// by whoever reads the same file again (also after the host was renamed, as a container is on
// restart), and a different file never passes for it.
std::string fingerprint(const FileContents& contents) {
    std::uint64_t hash = 14695981039346656037ull;
    auto add = [&](std::string_view bytes) {
        for (unsigned char c : bytes) {
            hash ^= c;
            hash *= 1099511628211ull;
        }
        hash ^= 0xff;  // a separator no UTF-8 text holds
        hash *= 1099511628211ull;
    };
    for (const Task& t : contents.tasks) {
        add(std::to_string(t.id));
        add(task_value(t).dump());
    }
    add(std::to_string(contents.last_id));
    char out[24];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
    return out;
}

// Renames `path` (and its -wal, -shm) to `path + suffix`, or `path + suffix + ".<n>"` when that name
// is taken (a file restored and imported again), so no kept file is ever replaced; a file already
// renamed by another caller is fine. Never deletes.
void rename_file(const std::string& path, const std::string& suffix) {
    std::error_code ec;
    std::string target = path + suffix;
    for (int n = 1; n <= 100 && fs::exists(target, ec); ++n) target = path + suffix + "." + std::to_string(n);
    if (fs::exists(target, ec)) return;  // 100 kept copies: leave this one where it is
    for (const char* part : {"", "-wal", "-shm"}) {
        const fs::path from = path + part;
        if (!fs::exists(from, ec)) continue;
        fs::rename(from, target + part, ec);
    }
}

class Import {
public:
    Import(const skillhost::Call& call, const Storage& storage, std::string path)
        : call_(call), storage_(storage), path_(std::move(path)), source_(host_name() + ":" + path_) {}

    void run() {
        OldFile file(path_);
        file.exec("BEGIN IMMEDIATE");  // one importer of this file at a time, across processes
        std::error_code ec;
        if (!fs::exists(path_, ec)) return;  // imported and renamed while this call waited
        const FileContents contents = read_file(file);
        fingerprint_ = fingerprint(contents);
        const std::string outcome = import(contents);
        file.exec("ROLLBACK");
        file.checkpoint_and_close();
        if (outcome == "imported") {
            rename_file(path_, ".migrated");
        } else if (outcome == "elsewhere_done") {
            rename_file(path_, ".not-imported");
        }
    }

private:
    // "imported", "elsewhere_done" or "elsewhere_importing".
    std::string import(const FileContents& contents) {
        if (contents.tasks.empty()) {
            // Nothing to import, so no marker: a file without tasks never keeps another instance's
            // file with tasks from being imported. Its ids stay used all the same.
            storage_.batch(Json::array(
                {Json::object({{"op", "advance_sequence"}, {"collection", "tasks"}, {"to", contents.last_id}})}));
            call_.log(LogLevel::info,
                      "tasks: " + path_ + " holds no tasks; the file is kept as " + path_ + ".migrated");
            return "imported";
        }
        std::optional<skillhost::Record> marker = storage_.get(kMeta, kMarker);
        if (!marker) {
            Json value = Json::object({{"state", "importing"},
                                       {"source", source_},
                                       {"fingerprint", fingerprint_},
                                       {"tasks", static_cast<std::int64_t>(contents.tasks.size())},
                                       {"last_id", contents.last_id},
                                       {"started_unix", static_cast<std::int64_t>(std::time(nullptr))}});
            Json operations = Json::array(
                {Json::object({{"op", "put"},
                               {"collection", kMeta},
                               {"key", kMarker},
                               {"value", value},
                               {"expected_version", 0}}),
                 Json::object({{"op", "advance_sequence"}, {"collection", "tasks"}, {"to", contents.last_id}})});
            try {
                Json results = storage_.batch(operations);
                marker = skillhost::Record{kMarker, value, results[std::size_t{0}].int_or("version", 0)};
            } catch (const SkillError& e) {
                if (e.code() != "STORAGE_CONFLICT") throw;
                marker = storage_.get(kMeta, kMarker);  // another instance claimed the import first
                if (!marker) throw;
            }
        }
        const std::string source = marker->value.string_or("source", "");
        const bool done = marker->value.string_or("state", "") == "done";
        if (marker->value.string_or("fingerprint", "") != fingerprint_) {
            call_.log(
                LogLevel::warn,
                "tasks: not importing " + std::to_string(contents.tasks.size()) + " task(s) of " + path_ +
                    ": the host's storage already holds this user's tasks imported from " + source +
                    (done ? "; the file is kept as " + path_ + ".not-imported" : " (that import is still running)"));
            return done ? "elsewhere_done" : "elsewhere_importing";
        }
        if (!done) write_tasks(contents, marker->version);
        return "imported";
    }

    void write_tasks(const FileContents& contents, std::int64_t marker_version) {
        std::vector<Task> moved;  // ids taken by different tasks: imported under new ids
        std::int64_t imported = 0;
        for (std::size_t next = 0; next < contents.tasks.size();) {
            // At most kBatch tasks and kBatchValueBytes of values (always at least one task).
            std::vector<const Task*> chunk;
            std::size_t bytes = 0;
            while (next < contents.tasks.size() && chunk.size() < kBatch) {
                const std::size_t size = task_value(contents.tasks[next]).dump().size();
                if (!chunk.empty() && bytes + size > kBatchValueBytes) break;
                bytes += size;
                chunk.push_back(&contents.tasks[next++]);
            }
            // Each conflict takes one task out of the chunk, so this ends within kBatch + 1 tries.
            while (!chunk.empty()) {
                Json operations = Json::array();
                for (const Task* t : chunk) operations.push_back(put_task(*t));
                try {
                    storage_.batch(operations);
                    imported += static_cast<std::int64_t>(chunk.size());
                    break;
                } catch (const SkillError& e) {
                    if (e.code() != "STORAGE_CONFLICT") throw;
                    const std::int64_t index = e.details().int_or("index", -1);
                    if (index < 0 || index >= static_cast<std::int64_t>(chunk.size())) throw;
                    const Task& taken = *chunk[static_cast<std::size_t>(index)];
                    auto existing = storage_.get("tasks", task_key(taken.id));
                    // The same task, written by an import of this file that was cut short (and maybe
                    // changed since): its creation time is the file's, which no update changes.
                    // Another task created with this id before the import began has its own.
                    if (!existing || existing->value.string_or("created_at", "") != taken.created_at)
                        moved.push_back(taken);
                    chunk.erase(chunk.begin() + index);
                }
            }
        }
        // Tasks under new ids are written in the batch that marks the import done (when they fit in
        // one), so an import cut short never writes one of them twice.
        Json renumbered = Json::array();
        Json operations = Json::array();
        std::size_t moved_bytes = 0;
        for (const Task& t : moved) moved_bytes += task_value(t).dump().size();
        const bool one_batch = moved.size() < kBatch && moved_bytes <= kBatchValueBytes;
        for (Task& t : moved) {
            const std::int64_t old_id = t.id;
            t.id = storage_.next_id("tasks");
            if (!one_batch) {
                storage_.put("tasks", task_key(t.id), task_value(t), 0);
            } else {
                operations.push_back(put_task(t));
            }
            renumbered.push_back(Json::object({{"file_id", old_id}, {"id", t.id}}));
        }
        Json cut = Json::array();
        for (std::int64_t id : contents.cut) cut.push_back(id);
        Json value = Json::object({{"state", "done"},
                                   {"source", source_},
                                   {"fingerprint", fingerprint_},
                                   {"tasks", static_cast<std::int64_t>(contents.tasks.size())},
                                   {"last_id", contents.last_id},
                                   {"renumbered", renumbered},
                                   {"cut", cut},
                                   {"finished_unix", static_cast<std::int64_t>(std::time(nullptr))}});
        operations.push_back(Json::object({{"op", "put"},
                                           {"collection", kMeta},
                                           {"key", kMarker},
                                           {"value", value},
                                           {"expected_version", marker_version}}));
        storage_.batch(operations);
        imported += static_cast<std::int64_t>(moved.size());
        for (const Json& r : renumbered.as_array())
            call_.log(LogLevel::warn, "tasks: task " + std::to_string(r["file_id"].as_int()) + " of " + path_ +
                                          " is now task " + std::to_string(r["id"].as_int()) + ": id " +
                                          std::to_string(r["file_id"].as_int()) +
                                          " was already taken by another task in the host's storage");
        for (std::int64_t id : contents.cut)
            call_.log(LogLevel::warn, "tasks: task " + std::to_string(id) + " of " + path_ +
                                          " was too large for a record; its notes were cut (the whole text "
                                          "stays in the kept file)");
        call_.log(LogLevel::info, "tasks: imported " + std::to_string(imported) + " task(s) from " + path_ +
                                      " into the host's storage; the file is kept as " + path_ + ".migrated");
    }

    const skillhost::Call& call_;
    const Storage& storage_;
    std::string path_;
    std::string source_;       // where this file is, for people: "<host name>:<path>"
    std::string fingerprint_;  // what it holds: fingerprint() of its contents
};

}  // namespace

void import_task_file_once(const skillhost::Call& call, const Storage& storage) {
    std::string dir(call.data_dir());
    if (dir.empty()) return;
    if (dir.back() != '/') dir += '/';
    const std::string path = dir + "tasks.db";
    std::error_code ec;
    if (!fs::exists(path, ec)) return;  // the usual case: one stat per call
    // Threads of this process take turns here; the file's write lock orders processes.
    static std::mutex importing;
    std::lock_guard<std::mutex> lock(importing);
    if (!fs::exists(path, ec)) return;
    try {
        Import(call, storage, path).run();
    } catch (const SkillError& e) {
        throw SkillError(e.code(),
                         "importing the older task file " + path + " into the host's storage failed: " + e.what() +
                             " (nothing is lost: the file stays and the next call resumes the import; if the file "
                             "is damaged, move it out of the directory to use the tasks already in the host's "
                             "storage)",
                         e.details());
    }
}

}  // namespace skillhost_builtin::tasks
