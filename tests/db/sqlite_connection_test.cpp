// Opening skillhost.db: several connections opening one new file at once (two CLI processes started
// together on a fresh home) all get a WAL database, none a "database is locked" error.
#include "db/sqlite_connection.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace skillhost::db {
namespace {

TEST(SqliteConnection, ConnectionsOpeningOneNewFileAtOnceAllGetAWalDatabase) {
    testing::TempDir dir;
    constexpr int rounds = 30, openers = 4;
    for (int round = 0; round < rounds; ++round) {
        const auto file = dir.path() / ("round-" + std::to_string(round) + ".db");
        std::atomic<int> ready{0};
        std::vector<std::string> errors(openers);
        std::vector<std::thread> threads;
        for (int i = 0; i < openers; ++i)
            threads.emplace_back([&, i] {
                ++ready;
                while (ready.load() < openers) std::this_thread::yield();
                auto connection = SqliteConnection::open(file, std::chrono::seconds(5));
                if (!connection) errors[i] = connection.error().message;
            });
        for (auto& t : threads) t.join();
        for (int i = 0; i < openers; ++i) ASSERT_EQ(errors[i], "") << "round " << round << ", opener " << i;
        auto check = SqliteConnection::open(file, std::chrono::seconds(5));
        ASSERT_TRUE(check) << check.error().message;
        SqliteStatement mode(check.value(), "PRAGMA journal_mode");
        ASSERT_EQ(mode.step(), SQLITE_ROW);
        EXPECT_EQ(mode.text(0), "wal");
    }
}

}  // namespace
}  // namespace skillhost::db
