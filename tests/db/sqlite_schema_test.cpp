// skillhost.db's numbered migrations on real files: a fresh file, a file of the first release
// (no version, tables without the later columns, rows in them), and a file from the future.
#include "db/sqlite_schema.hpp"
#include "auth/api_token_store.hpp"
#include "decisions/approval_queue.hpp"
#include "store/run_store.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <set>

namespace skillhost::db {
namespace {

using testing::TempDir;

// What the first release created: no user_version, no scopes / requested_token / owner columns.
constexpr const char* first_release_file =
    "CREATE TABLE approvals (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, skill_id TEXT NOT NULL,"
    " arguments TEXT NOT NULL, requested_at_ms INTEGER NOT NULL, requested_by TEXT NOT NULL,"
    " preview TEXT NOT NULL, expires_at_ms INTEGER NOT NULL, state TEXT NOT NULL, resolved_by TEXT,"
    " resolved_at_ms INTEGER, completed_at_ms INTEGER, reason TEXT, result TEXT, claim_host TEXT,"
    " claim_pid INTEGER, claim_start_ticks INTEGER);"
    "INSERT INTO approvals VALUES('apr-00000000000000aa','alice','echo.say','{\"text\":\"hi\"}',1,'user:alice',"
    " 'say hi',99999999999999,'pending',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);"
    "CREATE TABLE api_tokens (sha256 TEXT PRIMARY KEY, user_id TEXT NOT NULL, label TEXT NOT NULL,"
    " created_ms INTEGER NOT NULL);"
    "INSERT INTO api_tokens VALUES('"
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef','alice','laptop',5);"
    "CREATE TABLE runs (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, status TEXT NOT NULL, goal TEXT NOT NULL,"
    " created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL, record TEXT NOT NULL);"
    "INSERT INTO runs VALUES('run-00000000000000bb','alice','completed','say hi',7,8,"
    " '{\"id\":\"run-00000000000000bb\",\"goal\":\"say hi\",\"user_id\":\"alice\",\"mode\":\"agent\","
    "\"status\":\"completed\",\"created_ms\":7,\"updated_ms\":8}');";

std::set<std::string> columns(const SqliteConnection& connection, const std::string& table) {
    std::set<std::string> names;
    SqliteStatement statement(connection, "SELECT name FROM pragma_table_info(?)");
    statement.bind(1, table);
    while (statement.step() == SQLITE_ROW) names.insert(statement.text(0));
    return names;
}

TEST(SqliteSchema, AFreshFileIsMigratedToTheLatestVersionAndRecordsEachStep) {
    TempDir home;
    auto connection = SqliteConnection::open(home / "skillhost.db");
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    auto before = check_sqlite_schema(*connection);
    ASSERT_TRUE(before.ok()) << before.error().message;
    EXPECT_EQ(before->current, 0);
    EXPECT_EQ(before->latest, latest_sqlite_schema_version());
    EXPECT_EQ(before->pending.size(), static_cast<std::size_t>(latest_sqlite_schema_version()));
    EXPECT_FALSE(before->up_to_date());

    auto after = migrate_sqlite_schema(*connection);
    ASSERT_TRUE(after.ok()) << after.error().message;
    EXPECT_TRUE(after->up_to_date());
    EXPECT_TRUE(after->pending.empty());
    SqliteStatement applied(*connection, "SELECT COUNT(*) FROM schema_migrations");
    ASSERT_EQ(applied.step(), SQLITE_ROW);
    EXPECT_EQ(applied.integer(0), latest_sqlite_schema_version());
    EXPECT_TRUE(columns(*connection, "runs").contains("owner"));

    // Migrating again changes nothing and fails nothing.
    auto again = migrate_sqlite_schema(*connection);
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(again->current, after->current);
}

TEST(SqliteSchema, AFileOfTheFirstReleaseUpgradesInPlaceKeepingItsRows) {
    TempDir home;
    {
        auto connection = SqliteConnection::open(home / "skillhost.db");
        ASSERT_TRUE(connection.ok());
        ASSERT_TRUE(connection->exec(first_release_file).ok());
        EXPECT_FALSE(columns(*connection, "api_tokens").contains("scopes"));
    }
    // Opening any store upgrades the file; the old rows read back with the meaning they had.
    auto tokens = auth::ApiTokenStore::open(home / "skillhost.db");
    ASSERT_TRUE(tokens.ok()) << tokens.error().message;
    auto listed = (*tokens)->list("alice");
    ASSERT_TRUE(listed.ok()) << listed.error().message;
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ(listed->front().scopes.to_text(), auth::Scopes::all().to_text());

    auto queue = decisions::ApprovalQueue::open(home / "skillhost.db");
    ASSERT_TRUE(queue.ok()) << queue.error().message;
    auto approval = (*queue)->get("apr-00000000000000aa");
    ASSERT_TRUE(approval.ok()) << approval.error().message;
    EXPECT_EQ(approval->requested_token, "");
    EXPECT_EQ(approval->state, decisions::ApprovalState::pending);

    auto runs = store::RunStore::open(home / "skillhost.db");
    ASSERT_TRUE(runs.ok()) << runs.error().message;
    auto run = (*runs)->get("run-00000000000000bb");
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->goal, "say hi");

    auto connection = SqliteConnection::open(home / "skillhost.db");
    ASSERT_TRUE(connection.ok());
    auto status = check_sqlite_schema(*connection);
    ASSERT_TRUE(status.ok());
    EXPECT_TRUE(status->up_to_date());
    EXPECT_TRUE(columns(*connection, "pending_decisions").contains("requested_token"));
    EXPECT_TRUE(columns(*connection, "runs").contains("owner"));
    // The state machine's trigger came with the upgrade: a rejected approval cannot be approved.
    EXPECT_TRUE(
        connection->exec("UPDATE pending_decisions SET state = 'rejected' WHERE id = 'apr-00000000000000aa'").ok());
    EXPECT_FALSE(
        connection->exec("UPDATE pending_decisions SET state = 'claimed' WHERE id = 'apr-00000000000000aa'").ok());
}

TEST(SqliteSchema, AFileWithSomeLaterColumnsAlreadyAddedStillUpgrades) {
    TempDir home;
    {
        auto connection = SqliteConnection::open(home / "skillhost.db");
        ASSERT_TRUE(connection.ok());
        ASSERT_TRUE(connection->exec(first_release_file).ok());
        // Versions between the first release and schema versioning added this one on open.
        ASSERT_TRUE(connection->exec("ALTER TABLE runs ADD COLUMN owner TEXT").ok());
    }
    auto connection = SqliteConnection::open(home / "skillhost.db");
    ASSERT_TRUE(connection.ok());
    auto status = migrate_sqlite_schema(*connection);
    ASSERT_TRUE(status.ok()) << status.error().message;
    EXPECT_TRUE(status->up_to_date());
    EXPECT_TRUE(columns(*connection, "api_tokens").contains("scopes"));
}

TEST(SqliteSchema, AFileFromANewerSkillhostIsRefusedAndLeftAlone) {
    TempDir home;
    auto connection = SqliteConnection::open(home / "skillhost.db");
    ASSERT_TRUE(connection.ok());
    ASSERT_TRUE(connection->exec("PRAGMA user_version = " + std::to_string(latest_sqlite_schema_version() + 1)).ok());
    auto status = migrate_sqlite_schema(*connection);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, "SCHEMA_TOO_NEW");
    EXPECT_NE(status.error().message.find((home / "skillhost.db").string()), std::string::npos);
    auto runs = store::RunStore::open(home / "skillhost.db");
    ASSERT_FALSE(runs.ok());
    EXPECT_EQ(runs.error().code, "SCHEMA_TOO_NEW");
}

}  // namespace
}  // namespace skillhost::db
