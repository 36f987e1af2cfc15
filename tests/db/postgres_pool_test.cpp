// The bounded pool behind every PostgreSQL store: concurrent statements run on separate
// connections, never more than the limit, a caller waits for a busy pool only up to its deadline
// (then DATABASE_UNAVAILABLE, a 503), and a pooled connection still rides out a server restart.
#include "db/backend_connection.hpp"
#include "db/postgres_pool.hpp"
#include "db/postgres_schema.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace skillhost::db {
namespace {

TEST(PgPool, OpensConnectionsOnDemandUpToItsLimitThenWaitsForOneUntilItsDeadline) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto first = PgConnection::open(url);
    ASSERT_TRUE(first.ok()) << first.error().message;
    PgPool pool(url, std::move(first.value()), PgPoolOptions{2, std::chrono::milliseconds(200)});
    EXPECT_EQ(pool.size(), 1u);
    {
        auto one = pool.acquire();
        ASSERT_TRUE(one.ok()) << one.error().message;
        auto two = pool.acquire();
        ASSERT_TRUE(two.ok()) << two.error().message;
        EXPECT_EQ(pool.size(), 2u);
        // Each lease is its own session.
        EXPECT_NE((*one)->query("SELECT pg_backend_pid()")->text(0, 0),
                  (*two)->query("SELECT pg_backend_pid()")->text(0, 0));

        auto third = pool.acquire();
        ASSERT_FALSE(third.ok());
        EXPECT_EQ(third.error().code, "DATABASE_UNAVAILABLE");
        EXPECT_NE(third.error().message.find("all 2 connections"), std::string::npos) << third.error().message;
        EXPECT_FALSE(third.error().suggestions.empty());
        EXPECT_EQ(pool.size(), 2u);  // the limit held
    }
    // Given back, they serve again without opening more.
    auto again = pool.acquire();
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(pool.size(), 2u);
}

TEST(PgPool, AWaitingCallerGetsTheConnectionAnotherGivesBack) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto first = PgConnection::open(url);
    ASSERT_TRUE(first.ok()) << first.error().message;
    PgPool pool(url, std::move(first.value()), PgPoolOptions{1, std::chrono::seconds(60)});
    auto held = std::make_optional(pool.acquire());
    ASSERT_TRUE(held->ok());
    std::promise<void> waiting;
    auto waiter = std::async(std::launch::async, [&] {
        waiting.set_value();
        auto lease = pool.acquire();
        if (!lease) return lease.error().code.str();
        auto answer = (*lease)->query("SELECT 7");
        return answer ? answer->text(0, 0) : answer.error().code.str();
    });
    waiting.get_future().wait();
    held.reset();  // gives the one connection back
    EXPECT_EQ(waiter.get(), "7");
    EXPECT_EQ(pool.size(), 1u);
}

TEST(PgPool, AStatementBlockedOnTheServerDoesNotHoldUpTheStoresOtherStatements) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto store = BackendConnection::open(StorageLocation::postgres(url));
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto blocker = PgConnection::open(url);
    ASSERT_TRUE(blocker.ok());
    ASSERT_TRUE(blocker->query("SELECT pg_advisory_lock(4242)").ok());
    // One statement of the store waits for the lock on the server...
    auto blocked = std::async(std::launch::async, [&] {
        auto rows = (*store)->run("waiting for a lock", "SELECT pg_advisory_lock(4242)::text, 'got it'", {});
        return rows ? rows->text(0, 1) : rows.error().message;
    });
    // ...which we see from the server's side before going on.
    for (int i = 0; i < 6000; ++i) {
        auto waiting = blocker->query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
        ASSERT_TRUE(waiting.ok());
        if (waiting->integer(0, 0) == 1) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // Another statement of the same store is answered meanwhile: it runs on another connection.
    auto other = (*store)->run("reading modes", "SELECT count(*) FROM user_modes", {});
    ASSERT_TRUE(other.ok()) << other.error().message;
    EXPECT_EQ(other->integer(0, 0), 0);
    ASSERT_TRUE(blocker->query("SELECT pg_advisory_unlock(4242)").ok());
    EXPECT_EQ(blocked.get(), "got it");
}

TEST(PgPool, PooledConnectionsComeBackAfterTheServerRestarts) {
    std::string why;
    std::unique_ptr<testing::PostgresServer> server;
    std::string url;
    SKILLHOST_OWN_POSTGRES_SERVER(server, url);
    auto store = BackendConnection::open(StorageLocation::postgres(url));
    ASSERT_TRUE(store.ok()) << store.error().message;
    ASSERT_TRUE((*store)->run("reading", "SELECT 1", {}).ok());
    server->stop();
    auto down = (*store)->run("reading", "SELECT 1", {});
    ASSERT_FALSE(down.ok());
    EXPECT_EQ(down.error().code, "DATABASE_UNAVAILABLE") << down.error().message;
    ASSERT_TRUE(server->start_again(why)) << why;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    Result<SqlRows> back = down.error();
    while (!(back = (*store)->run("reading", "SELECT 1", {})) && std::chrono::steady_clock::now() < deadline) {
        EXPECT_EQ(back.error().code, "DATABASE_UNAVAILABLE") << back.error().message;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(back.ok()) << back.error().message;
}

}  // namespace
}  // namespace skillhost::db
