// A PostgreSQL connection across a restart of the server: calls while it is down fail fast with
// DATABASE_UNAVAILABLE, the next use after it is back re-opens the connection (session settings
// restored), and a transaction that lost its connection never continues on a fresh one.
#include "db/postgres_connection.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace skillhost::db {
namespace {

class PostgresReconnect : public ::testing::Test {
protected:
    void SetUp() override { SKILLHOST_OWN_POSTGRES_SERVER(server, url); }
    // Uses `connection` until a statement succeeds (the reconnect backoff is at most 5 s).
    static Result<PgResult> query_until_back(PgConnection& connection, const std::string& sql) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (true) {
            auto result = connection.query(sql);
            if (result || std::chrono::steady_clock::now() > deadline) return result;
            EXPECT_EQ(result.error().code, "DATABASE_UNAVAILABLE") << result.error().message;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    std::unique_ptr<testing::PostgresServer> server;
    std::string url;
};

TEST_F(PostgresReconnect, ACallWhileTheServerIsDownFailsFastAndTheConnectionComesBackWithItsSettings) {
    auto connection = PgConnection::open(url);
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    ASSERT_TRUE(connection->exec("SET application_name = 'reconnect-test'").ok());

    server->stop();
    auto down = connection->query("SELECT 1");
    ASSERT_FALSE(down.ok());
    EXPECT_EQ(down.error().code, "DATABASE_UNAVAILABLE") << down.error().message;
    EXPECT_TRUE(is_unavailable(down.error()));
    EXPECT_FALSE(down.error().suggestions.empty());
    auto still_down = connection->query("SELECT 1");
    EXPECT_EQ(still_down.error().code, "DATABASE_UNAVAILABLE");

    std::string why;
    ASSERT_TRUE(server->start_again(why)) << why;
    auto back = query_until_back(*connection, "SELECT current_setting('application_name')");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->text(0, 0), "reconnect-test");
    EXPECT_GE(connection->reconnects(), 1u);
}

TEST_F(PostgresReconnect, AnIdleConnectionTheServerClosedIsReopenedBeforeTheNextStatement) {
    auto connection = PgConnection::open(url);
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    server->stop();
    std::string why;
    ASSERT_TRUE(server->start_again(why)) << why;
    // The server said goodbye on the idle connection; the next statement does not pay for it.
    auto answered = connection->query("SELECT 41 + 1");
    ASSERT_TRUE(answered.ok()) << answered.error().message;
    EXPECT_EQ(answered->integer(0, 0), 42);
}

TEST_F(PostgresReconnect, ATransactionThatLostItsConnectionNeverContinuesOnAFreshOne) {
    auto connection = PgConnection::open(url);
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    ASSERT_TRUE(connection->exec("CREATE TABLE t (v INTEGER)").ok());
    {
        PgTransaction transaction(*connection);
        ASSERT_TRUE(transaction.begun().ok());
        ASSERT_TRUE(connection->query("INSERT INTO t VALUES (1)").ok());
        server->stop();
        std::string why;
        ASSERT_TRUE(server->start_again(why)) << why;
        // The server is back, but this transaction's first insert died with the old session.
        auto second = connection->query("INSERT INTO t VALUES (2)");
        ASSERT_FALSE(second.ok());
        EXPECT_EQ(second.error().code, "DATABASE_UNAVAILABLE") << second.error().message;
        EXPECT_FALSE(transaction.commit().ok());
    }
    auto rows = query_until_back(*connection, "SELECT count(*) FROM t");
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    EXPECT_EQ(rows->integer(0, 0), 0);
}

}  // namespace
}  // namespace skillhost::db
