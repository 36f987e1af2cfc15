// The PostgreSQL schema's migrations and the libpq layer on a real server the test starts.
#include "db/postgres_schema.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace skillhost::db {
namespace {

TEST(PostgresSchema, AnEmptyDatabaseIsMigratedOnceAndThenReportsCurrent) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto connection = PgConnection::open(url);
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    auto before = check_postgres_schema(*connection);
    ASSERT_TRUE(before.ok()) << before.error().message;
    EXPECT_EQ(before->backend, "postgres");
    EXPECT_EQ(before->current, 0);
    EXPECT_EQ(before->pending.size(), static_cast<std::size_t>(latest_postgres_schema_version()));

    auto after = migrate_postgres_schema(*connection);
    ASSERT_TRUE(after.ok()) << after.error().message;
    EXPECT_TRUE(after->up_to_date());
    auto tables = connection->query(
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN "
        "('pending_decisions','api_tokens','user_modes','runs','run_events','guidance','playbooks','audit_records')");
    ASSERT_TRUE(tables.ok()) << tables.error().message;
    EXPECT_EQ(tables->integer(0, 0), 8);

    auto again = migrate_postgres_schema(*connection);
    ASSERT_TRUE(again.ok()) << again.error().message;
    auto rows = connection->query("SELECT COUNT(*) FROM schema_migrations");
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(rows->integer(0, 0), latest_postgres_schema_version());
}

TEST(PostgresSchema, InstancesMigratingAtOnceApplyEachVersionOnce) {
    SKILLHOST_POSTGRES_DATABASE(url);
    constexpr int instances = 4;
    std::vector<std::string> failures(instances);
    std::vector<std::thread> threads;
    for (int i = 0; i < instances; ++i) {
        threads.emplace_back([&, i] {
            auto connection = PgConnection::open(url);
            if (!connection) {
                failures[i] = connection.error().message;
                return;
            }
            auto status = migrate_postgres_schema(*connection);
            if (!status) failures[i] = status.error().message;
        });
    }
    for (auto& t : threads) t.join();
    for (const auto& failure : failures) EXPECT_EQ(failure, "");
    auto connection = PgConnection::open(url);
    ASSERT_TRUE(connection.ok());
    auto rows = connection->query("SELECT COUNT(*) FROM schema_migrations");
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(rows->integer(0, 0), latest_postgres_schema_version());
}

TEST(PostgresSchema, ADatabaseFromANewerSkillhostIsRefused) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto connection = PgConnection::open(url);
    ASSERT_TRUE(connection.ok());
    ASSERT_TRUE(migrate_postgres_schema(*connection).ok());
    ASSERT_TRUE(connection
                    ->query("INSERT INTO schema_migrations VALUES($1, 'from the future', 0)",
                            {std::to_string(latest_postgres_schema_version() + 1)})
                    .ok());
    auto status = migrate_postgres_schema(*connection);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, "SCHEMA_TOO_NEW");
}

TEST(PostgresSchema, TheDecisionStateMachineHoldsInTheDatabaseItself) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto connection = PgConnection::open(url);
    ASSERT_TRUE(connection.ok());
    ASSERT_TRUE(migrate_postgres_schema(*connection).ok());
    ASSERT_TRUE(connection
                    ->exec("INSERT INTO pending_decisions(id, kind, user_id, skill_id, arguments, requested_at_ms,"
                           " requested_by, request, expires_at_ms, state) VALUES('apr-1','approval','alice','echo.say',"
                           "'{}',1,'user:alice','{}',2,'succeeded')")
                    .ok());
    auto reapproved = connection->exec("UPDATE pending_decisions SET state = 'claimed' WHERE id = 'apr-1'");
    ASSERT_FALSE(reapproved.ok());
    EXPECT_EQ(sqlstate_of(reapproved.error()), "23514");
    EXPECT_NE(reapproved.error().message.find("illegal decision state transition"), std::string::npos);
}

TEST(PostgresConnection, ParametersTravelAsTextAndNullsAsNull) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto connection = PgConnection::open(url);
    ASSERT_TRUE(connection.ok());
    const std::string hostile = "'; DROP TABLE x; -- \xe2\x9c\x93";
    auto result = connection->query("SELECT $1::text, $2::text IS NULL, length($1)", {hostile, std::nullopt});
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(result->text(0, 0), hostile);
    EXPECT_EQ(result->text(0, 1), "t");
    EXPECT_TRUE(result->is_null(0, 5));  // out of range reads as NULL, never past the result
    auto nul = connection->query("SELECT $1::text", {std::string("before\0after", 12)});
    ASSERT_FALSE(nul.ok());
    EXPECT_EQ(sqlstate_of(nul.error()), "22021");
    EXPECT_NE(nul.error().message.find("NUL byte"), std::string::npos);
}

TEST(PostgresConnection, AnUnreachableServerIsADatabaseErrorWithoutThePassword) {
    auto connection = PgConnection::open(
        "host=/nonexistent-socket-dir port=1 user=skillhost password=hunter2 "
        "dbname=skillhost connect_timeout=2");
    ASSERT_FALSE(connection.ok());
    EXPECT_EQ(connection.error().code, "DATABASE_ERROR");
    EXPECT_EQ(connection.error().message.find("hunter2"), std::string::npos) << connection.error().message;
    EXPECT_FALSE(connection.error().suggestions.empty());
}

TEST(PostgresConnection, AMalformedConnectionStringIsADatabaseError) {
    auto connection = PgConnection::open("host=a nosuchkeyword=1");
    ASSERT_FALSE(connection.ok());
    EXPECT_EQ(connection.error().code, "DATABASE_ERROR");
}

}  // namespace
}  // namespace skillhost::db
