// The import of a SQLite file that an older version of a built-in plugin kept in the user's data
// directory (tasks.db, memory.db) into the host's storage ("skillhost.storage/1"), once. The plugin
// says how to read its file (FileImport::read); the rest is the same for every plugin. On the first
// call that finds the file (per user and instance):
//  1. It takes the file's write lock (BEGIN IMMEDIATE), so one caller at a time imports it, and
//     reads its records and its last id (AUTOINCREMENT's counter: ids of deleted rows stay used).
//  2. It creates the marker `<collection>.meta`/`file_import` (expected_version 0: of two instances
//     importing at once, one wins) naming this file (its host and path, and a fingerprint of its
//     contents that says whether a file is the one being imported) and advances the collection's
//     sequence past the file's last id in the same batch, so new records never take an imported id.
//  3. It writes the records under their ids, in batches of at most 100 operations, each create-only.
//     A record whose id is already taken by a different record (one created through another instance
//     before the import) is imported under a new id, and the log says which.
//  4. It marks the import done and renames the file (and its -wal, -shm) to <file>.migrated, kept
//     as evidence, never deleted. An import cut short is resumed by the next call.
// When the marker names another file (another fingerprint: another instance imported its own file
// for this user), this file is not imported: the log says so and, once that import is done, the file
// is renamed to <file>.not-imported (kept; its records are not in the shared store).
#pragma once

#include "sqlite_database.hpp"

#include <skillhost/skill.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace skillhost_builtin {

// The old file, opened without creating it: a file renamed meanwhile is not made again, empty.
class OldFile {
public:
    explicit OldFile(const std::string& path);
    ~OldFile();
    OldFile(const OldFile&) = delete;
    OldFile& operator=(const OldFile&) = delete;

    void exec(const char* sql);
    Statement prepare(std::string_view sql) { return Statement(db_, sql, path_); }
    bool has_table(const char* name);
    // The largest id sqlite_sequence holds for `table` (AUTOINCREMENT's counter), or 0.
    std::int64_t sequence_of(const char* table);
    // Folds the write-ahead log into the file (so the renamed file holds every row) and closes.
    void checkpoint_and_close();

private:
    void close();
    std::string path_;
    sqlite3* db_ = nullptr;
};

struct ImportedRecord {
    std::int64_t id = 0;
    skillhost::Json value;  // as the plugin stores it
};

struct ImportedFile {
    std::vector<ImportedRecord> records;  // by id
    std::int64_t last_id = 0;             // the largest id the file ever gave
    std::vector<std::int64_t> cut;        // records whose text was cut to fit a record
};

struct FileImport {
    std::string file_name;   // "tasks.db"
    std::string collection;  // "tasks": numbered by record_key(), ids from its sequence
    std::string noun;        // "task", for the log
    // Reads the file (inside the import's write lock).
    std::function<ImportedFile(OldFile&)> read;
    // What tells a record apart from another with the same id: a field no later change alters
    // (its creation time). A record the store holds under an imported id with the same identity was
    // written by an import of this file that was cut short; one with another identity is another
    // record, and the imported one gets a new id.
    std::function<std::string(const skillhost::Json& value)> identity;
};

// Imports `import.file_name` from the call's data directory when it is there (one stat otherwise).
// Throws the storage's error, explained, when the import fails; the file stays and the next call
// resumes.
void import_file_once(const skillhost::Call& call, const skillhost::Storage& storage, const FileImport& import);

// Tags as the older plugins joined them in one column: separated by the unit separator (0x1f),
// which no tag holds.
std::vector<std::string> split_unit_separated(const std::string& joined);

// `text` cut to at most `bytes` bytes, never inside a UTF-8 sequence.
std::string cut_utf8(const std::string& text, std::size_t bytes);

// The most bytes of a record value an import writes: a record's limit with room for a note saying
// where the whole text is.
constexpr std::size_t kMaxImportedValueBytes = SKILLHOST_STORAGE_MAX_VALUE_BYTES - 4096;

}  // namespace skillhost_builtin
