// What serve refuses to start over, and what it must not: sqlite_file_check on real SQLite files
// edited byte by byte.
#include "db/sqlite_connection.hpp"
#include "db/sqlite_file_check.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace skillhost::db {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A database with `rows` rows of 1 KiB; with `keep_wal` the connection stays open (its WAL keeps
// the frames) and is returned, else it is checkpointed and closed.
std::optional<SqliteConnection> make_database(const fs::path& file, int rows, bool keep_wal) {
    auto connection = SqliteConnection::open(file);
    EXPECT_TRUE(connection) << connection.error().message;
    EXPECT_TRUE(connection->exec("PRAGMA wal_autocheckpoint=0; CREATE TABLE t (v TEXT)"));
    for (int i = 0; i < rows; ++i)
        EXPECT_TRUE(connection->exec("INSERT INTO t VALUES (printf('%.1024d', " + std::to_string(i) + "))"));
    if (keep_wal) return std::move(connection.value());
    EXPECT_TRUE(connection->exec("PRAGMA wal_checkpoint(TRUNCATE)"));
    return std::nullopt;
}

void overwrite(const fs::path& file, std::uintmax_t offset, std::string_view bytes) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(SqliteFileCheck, AHealthyDatabaseAndAFreshHomeHaveNoProblems) {
    testing::TempDir dir;
    EXPECT_TRUE(inspect_sqlite_files(dir.path() / "skillhost.db").empty()) << "no database yet";
    (void)make_database(dir.path() / "skillhost.db", 50, false);
    EXPECT_TRUE(inspect_sqlite_files(dir.path() / "skillhost.db").empty());
    auto open = make_database(dir.path() / "live.db", 50, true);
    EXPECT_TRUE(inspect_sqlite_files(dir.path() / "live.db").empty()) << "a WAL full of good frames";
}

TEST(SqliteFileCheck, AnEmptyOrTruncatedDatabaseIsDamaged) {
    testing::TempDir dir;
    const fs::path db = dir.path() / "skillhost.db";
    (void)make_database(db, 50, false);
    const auto size = fs::file_size(db);
    fs::resize_file(db, size / 2);
    auto problems = inspect_sqlite_files(db);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_THAT(problems[0].what, HasSubstr("truncated"));
    fs::resize_file(db, 0);
    problems = inspect_sqlite_files(db);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_THAT(problems[0].what, HasSubstr("empty"));
    const Error error = damaged_store_error(db, problems);
    EXPECT_EQ(error.code, "STORE_DAMAGED");
    EXPECT_THAT(error.message, HasSubstr("nothing was changed or deleted"));
}

TEST(SqliteFileCheck, AGarbledWalFrameIsDamagedButATornLastFrameIsACrashNotDamage) {
    testing::TempDir dir;
    const fs::path db = dir.path() / "skillhost.db";
    const fs::path wal = dir.path() / "skillhost.db-wal";
    auto open = make_database(db, 20, true);
    fs::copy_file(db, dir.path() / "copy.db");
    fs::copy_file(wal, dir.path() / "copy.db-wal");
    open.reset();  // the copies are what a killed process leaves: database plus WAL
    const fs::path copy = dir.path() / "copy.db";
    const fs::path copy_wal = dir.path() / "copy.db-wal";
    const auto wal_size = fs::file_size(copy_wal);
    ASSERT_GT(wal_size, 32u + 3 * (24 + 4096));

    fs::copy_file(copy_wal, dir.path() / "torn.db-wal");
    fs::copy_file(copy, dir.path() / "torn.db");
    fs::resize_file(dir.path() / "torn.db-wal", wal_size - 1000);  // the last frame cut mid-page
    EXPECT_TRUE(inspect_sqlite_files(dir.path() / "torn.db").empty()) << "a crash mid-write is not damage";

    overwrite(copy_wal, 32 + 24 + 300, "\x5a\xa5\x5a\xa5");  // inside the first frame's page
    auto problems = inspect_sqlite_files(copy);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].file, copy_wal);
    EXPECT_THAT(problems[0].what, HasSubstr("frame 1 fails its checksum"));
    EXPECT_EQ(fs::file_size(copy_wal), wal_size) << "inspecting changed the file";

    overwrite(copy_wal, 0, "garbage!");
    problems = inspect_sqlite_files(copy);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_THAT(problems[0].what, HasSubstr("garbled"));
}

TEST(SqliteFileCheck, SettingAsideMovesTheFilesAndDeletesNothing) {
    testing::TempDir dir;
    const fs::path db = dir.path() / "skillhost.db";
    (void)make_database(db, 5, false);
    fs::resize_file(db, 0);
    auto moved = set_aside_sqlite_files(db);
    ASSERT_TRUE(moved) << moved.error().message;
    EXPECT_FALSE(fs::exists(db));
    EXPECT_TRUE(fs::exists(*moved / "skillhost.db"));
    EXPECT_EQ(moved->parent_path(), dir.path());
    EXPECT_THAT(moved->filename().string(), HasSubstr("damaged-"));
}

}  // namespace
}  // namespace skillhost::db
