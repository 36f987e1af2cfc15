// Looks at a SQLite database and its write-ahead log before SQLite opens them, for damage SQLite
// would not refuse but silently work around: an empty or truncated database file (SQLite starts a
// fresh one), a WAL with a frame that fails its checksum ahead of frames of the same generation
// (SQLite drops everything from that frame on, then checkpoints and deletes the WAL). A host must
// not start over such files: it stops and says what to do; nothing here changes a file except
// set_aside_sqlite_files(), which an operator asks for.
#pragma once

#include "base/error.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace skillhost::db {

struct SqliteFileProblem {
    std::filesystem::path file;
    std::string what;  // one sentence: what is wrong with it
};

// No problems for a healthy pair and for a home without a database yet. Reads at most the WAL's
// frame headers and pages once, with a bounded buffer.
std::vector<SqliteFileProblem> inspect_sqlite_files(const std::filesystem::path& database_file);

// STORE_DAMAGED listing the problems, the files kept for recovery, and the commands that help.
Error damaged_store_error(const std::filesystem::path& database_file, const std::vector<SqliteFileProblem>& problems);

// Moves the database, its -wal and its -shm into <its directory>/damaged-<UTC stamp>/ (never
// deletes or overwrites anything) and returns that directory.
Result<std::filesystem::path> set_aside_sqlite_files(const std::filesystem::path& database_file);

}  // namespace skillhost::db
