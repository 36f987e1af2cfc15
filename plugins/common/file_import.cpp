#include "file_import.hpp"

#include "stored_records.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>

namespace skillhost_builtin {

using skillhost::Json;
using skillhost::LogLevel;
using skillhost::SkillError;
using skillhost::Storage;

namespace fs = std::filesystem;

OldFile::OldFile(const std::string& path) : path_(path) {
    const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        const std::string detail = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        sqlite3_close(db_);
        db_ = nullptr;
        throw SkillError("STORAGE_ERROR", "could not open the old file '" + path + "' to import it: " + detail,
                         Json::object({{"database", path}}));
    }
    sqlite3_busy_timeout(db_, 10000);
}

OldFile::~OldFile() {
    close();
}

void OldFile::exec(const char* sql) {
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) throw_storage_error(db_, rc, std::string("executing '") + sql + "'", path_);
}

bool OldFile::has_table(const char* name) {
    Statement s = prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
    s.bind(1, name);
    return s.step();
}

std::int64_t OldFile::sequence_of(const char* table) {
    if (!has_table("sqlite_sequence")) return 0;
    Statement seq = prepare("SELECT seq FROM sqlite_sequence WHERE name = ?1");
    seq.bind(1, table);
    return seq.step() ? seq.int64(0) : 0;
}

void OldFile::checkpoint_and_close() {
    if (!db_) return;
    sqlite3_exec(db_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
    close();
}

void OldFile::close() {
    sqlite3_close(db_);
    db_ = nullptr;
}

std::vector<std::string> split_unit_separated(const std::string& joined) {
    std::vector<std::string> out;
    for (std::size_t start = 0; !joined.empty() && start <= joined.size();) {
        std::size_t end = joined.find('\x1f', start);
        if (end == std::string::npos) end = joined.size();
        out.push_back(joined.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

std::string cut_utf8(const std::string& text, std::size_t bytes) {
    if (text.size() <= bytes) return text;
    while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
    return text.substr(0, bytes);
}

namespace {

constexpr const char* kMarker = "file_import";
constexpr std::size_t kBatch = SKILLHOST_STORAGE_MAX_BATCH_OPERATIONS;
// Values of one import batch at most (the batch's JSON also has its keys and operations).
constexpr std::size_t kBatchValueBytes = SKILLHOST_STORAGE_MAX_BATCH_BYTES / 2;

std::string host_name() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
    return name;
}

// What identifies a file's contents, whichever host or path it is read from: FNV-1a (64 bits) over
// its records as they would be stored, in id order, and its last id. An import cut short is resumed
// by whoever reads the same file again (also after the host was renamed, as a container is on
// restart), and a different file never passes for it.
std::string fingerprint(const ImportedFile& contents) {
    std::uint64_t hash = 14695981039346656037ull;
    auto add = [&](std::string_view bytes) {
        for (unsigned char c : bytes) {
            hash ^= c;
            hash *= 1099511628211ull;
        }
        hash ^= 0xff;  // a separator no UTF-8 text holds
        hash *= 1099511628211ull;
    };
    for (const ImportedRecord& r : contents.records) {
        add(std::to_string(r.id));
        add(r.value.dump());
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
    Import(const skillhost::Call& call, const Storage& storage, const FileImport& spec, std::string path)
        : call_(call),
          storage_(storage),
          spec_(spec),
          meta_(spec.collection + ".meta"),
          path_(std::move(path)),
          source_(host_name() + ":" + path_) {}

    void run() {
        OldFile file(path_);
        file.exec("BEGIN IMMEDIATE");  // one importer of this file at a time, across processes
        std::error_code ec;
        if (!fs::exists(path_, ec)) return;  // imported and renamed while this call waited
        const ImportedFile contents = spec_.read(file);
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
    void log(LogLevel level, const std::string& message) const { call_.log(level, spec_.collection + ": " + message); }

    Json put(const ImportedRecord& r) const {
        return Json::object({{"op", "put"},
                             {"collection", spec_.collection},
                             {"key", record_key(r.id)},
                             {"value", r.value},
                             {"expected_version", 0}});
    }

    Json advance_sequence(std::int64_t to) const {
        return Json::object({{"op", "advance_sequence"}, {"collection", spec_.collection}, {"to", to}});
    }

    // "imported", "elsewhere_done" or "elsewhere_importing".
    std::string import(const ImportedFile& contents) {
        if (contents.records.empty()) {
            // Nothing to import, so no marker: a file without records never keeps another instance's
            // file with records from being imported. Its ids stay used all the same.
            storage_.batch(Json::array({advance_sequence(contents.last_id)}));
            log(LogLevel::info, path_ + " holds no " + spec_.noun + "s; the file is kept as " + path_ + ".migrated");
            return "imported";
        }
        std::optional<skillhost::Record> marker = storage_.get(meta_, kMarker);
        const bool resuming = marker.has_value();
        if (!marker) {
            Json value = Json::object({{"state", "importing"},
                                       {"source", source_},
                                       {"fingerprint", fingerprint_},
                                       {"records", static_cast<std::int64_t>(contents.records.size())},
                                       {"last_id", contents.last_id},
                                       {"started_unix", static_cast<std::int64_t>(std::time(nullptr))}});
            Json operations = Json::array({Json::object({{"op", "put"},
                                                         {"collection", meta_},
                                                         {"key", kMarker},
                                                         {"value", value},
                                                         {"expected_version", 0}}),
                                           advance_sequence(contents.last_id)});
            try {
                Json results = storage_.batch(operations);
                marker = skillhost::Record{kMarker, value, results[std::size_t{0}].int_or("version", 0)};
            } catch (const SkillError& e) {
                if (!is_storage_conflict(e)) throw;
                marker = storage_.get(meta_, kMarker);  // another instance claimed the import first
                if (!marker) throw;
            }
        }
        const std::string source = marker->value.string_or("source", "");
        const bool done = marker->value.string_or("state", "") == "done";
        if (marker->value.string_or("fingerprint", "") != fingerprint_) {
            log(LogLevel::warn,
                "not importing " + std::to_string(contents.records.size()) + " " + spec_.noun + "(s) of " + path_ +
                    ": the host's storage already holds this user's " + spec_.noun + "s imported from " + source +
                    (done ? "; the file is kept as " + path_ + ".not-imported" : " (that import is still running)"));
            return done ? "elsewhere_done" : "elsewhere_importing";
        }
        if (!done) write_records(contents, marker->version, resuming);
        return "imported";
    }

    void write_records(const ImportedFile& contents, std::int64_t marker_version, bool resuming) {
        std::vector<ImportedRecord> moved;  // ids taken by different records: imported under new ids
        std::int64_t imported = 0;
        // Resuming an import cut short: the records it wrote are skipped (and records another
        // instance created under an imported id are moved) from one listing, so a resume costs a
        // batch per 100 records still to write, never a conflict per record written before.
        std::vector<const ImportedRecord*> to_write;
        if (resuming) {
            std::map<std::string, std::string> stored;  // key -> identity
            for (const auto& record : list_all(storage_, spec_.collection, spec_.collection))
                stored.emplace(record.key, spec_.identity(record.value));
            for (const ImportedRecord& r : contents.records) {
                auto found = stored.find(record_key(r.id));
                if (found == stored.end()) {
                    to_write.push_back(&r);
                } else if (found->second != spec_.identity(r.value)) {
                    moved.push_back(r);
                } else {
                    ++imported;
                }
            }
        } else {
            for (const ImportedRecord& r : contents.records) to_write.push_back(&r);
        }
        for (std::size_t next = 0; next < to_write.size();) {
            // At most kBatch records and kBatchValueBytes of values (always at least one record).
            std::vector<const ImportedRecord*> chunk;
            std::size_t bytes = 0;
            while (next < to_write.size() && chunk.size() < kBatch) {
                const std::size_t size = to_write[next]->value.dump().size();
                if (!chunk.empty() && bytes + size > kBatchValueBytes) break;
                bytes += size;
                chunk.push_back(to_write[next++]);
            }
            // Each conflict takes one record out of the chunk, so this ends within kBatch + 1 tries.
            while (!chunk.empty()) {
                Json operations = Json::array();
                for (const ImportedRecord* r : chunk) operations.push_back(put(*r));
                try {
                    storage_.batch(operations);
                    imported += static_cast<std::int64_t>(chunk.size());
                    break;
                } catch (const SkillError& e) {
                    if (!is_storage_conflict(e)) throw;
                    const std::int64_t index = e.details().int_or("index", -1);
                    if (index < 0 || index >= static_cast<std::int64_t>(chunk.size())) throw;
                    const ImportedRecord& taken = *chunk[static_cast<std::size_t>(index)];
                    auto existing = storage_.get(spec_.collection, record_key(taken.id));
                    // The same record, written by an import of this file that was cut short (and
                    // maybe changed since), or another one created with this id before the import.
                    if (!existing || spec_.identity(existing->value) != spec_.identity(taken.value))
                        moved.push_back(taken);
                    chunk.erase(chunk.begin() + index);
                }
            }
        }
        // Records under new ids are written in the batch that marks the import done (when they fit
        // in one), so an import cut short never writes one of them twice.
        Json renumbered = Json::array();
        Json operations = Json::array();
        std::size_t moved_bytes = 0;
        for (const ImportedRecord& r : moved) moved_bytes += r.value.dump().size();
        const bool one_batch = moved.size() < kBatch && moved_bytes <= kBatchValueBytes;
        for (ImportedRecord& r : moved) {
            const std::int64_t old_id = r.id;
            r.id = storage_.next_id(spec_.collection);
            if (!one_batch) {
                storage_.put(spec_.collection, record_key(r.id), r.value, 0);
            } else {
                operations.push_back(put(r));
            }
            renumbered.push_back(Json::object({{"file_id", old_id}, {"id", r.id}}));
        }
        Json cut = Json::array();
        for (std::int64_t id : contents.cut) cut.push_back(id);
        Json value = Json::object({{"state", "done"},
                                   {"source", source_},
                                   {"fingerprint", fingerprint_},
                                   {"records", static_cast<std::int64_t>(contents.records.size())},
                                   {"last_id", contents.last_id},
                                   {"renumbered", renumbered},
                                   {"cut", cut},
                                   {"finished_unix", static_cast<std::int64_t>(std::time(nullptr))}});
        operations.push_back(Json::object({{"op", "put"},
                                           {"collection", meta_},
                                           {"key", kMarker},
                                           {"value", value},
                                           {"expected_version", marker_version}}));
        storage_.batch(operations);
        imported += static_cast<std::int64_t>(moved.size());
        for (const Json& r : renumbered.as_array())
            log(LogLevel::warn, spec_.noun + " " + std::to_string(r["file_id"].as_int()) + " of " + path_ + " is now " +
                                    spec_.noun + " " + std::to_string(r["id"].as_int()) + ": id " +
                                    std::to_string(r["file_id"].as_int()) + " was already taken by another " +
                                    spec_.noun + " in the host's storage");
        for (std::int64_t id : contents.cut)
            log(LogLevel::warn, spec_.noun + " " + std::to_string(id) + " of " + path_ +
                                    " was too large for a record; its text was cut (the whole text stays in the kept "
                                    "file)");
        log(LogLevel::info, "imported " + std::to_string(imported) + " " + spec_.noun + "(s) from " + path_ +
                                " into the host's storage; the file is kept as " + path_ + ".migrated");
    }

    const skillhost::Call& call_;
    const Storage& storage_;
    const FileImport& spec_;
    std::string meta_;
    std::string path_;
    std::string source_;       // where this file is, for people: "<host name>:<path>"
    std::string fingerprint_;  // what it holds: fingerprint() of its contents
};

}  // namespace

void import_file_once(const skillhost::Call& call, const Storage& storage, const FileImport& import) {
    std::string dir(call.data_dir());
    if (dir.empty()) return;
    if (dir.back() != '/') dir += '/';
    const std::string path = dir + import.file_name;
    std::error_code ec;
    if (!fs::exists(path, ec)) return;  // the usual case: one stat per call
    // Threads of this process take turns here; the file's write lock orders processes.
    static std::mutex importing;
    std::lock_guard<std::mutex> lock(importing);
    if (!fs::exists(path, ec)) return;
    try {
        Import(call, storage, import, path).run();
    } catch (const SkillError& e) {
        throw SkillError(e.code(),
                         "importing the older " + import.noun + " file " + path +
                             " into the host's storage failed: " + e.what() +
                             " (nothing is lost: the file stays and the next call resumes the import; if the file "
                             "is damaged, move it out of the directory to use the " +
                             import.noun + "s already in the host's storage)",
                         e.details());
    }
}

}  // namespace skillhost_builtin
