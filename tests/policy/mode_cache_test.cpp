#include "policy/mode_cache.hpp"
#include "auth/user_context.hpp"
#include "support/unit_testing.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

namespace skillhost::policy {
namespace {

using unit_testing::TempDir;

struct ModeCacheTest : ::testing::Test {
    TempDir dir;
    std::filesystem::path db = dir.path() / "skillhost.db";
    std::filesystem::path counter = dir.path() / "skillhost.db-modes";
    auth::UserDirectory users =
        auth::parse_users("users:\n  - {id: owner, role: owner, trust: supervised_auto, default_mode: agent}\n",
                          dir.path() / "users.yaml", dir.path() / "ws")
            .value();

    std::unique_ptr<ModeCache> open_cache(const std::filesystem::path& counter_file) {
        auto store = ModeStore::open(db);
        EXPECT_TRUE(store.ok()) << store.error().message;
        auto cache = ModeCache::open(std::move(store.value()), counter_file);
        EXPECT_TRUE(cache.ok()) << cache.error().message;
        return std::move(cache.value());
    }
    auth::CognitiveMode mode_of(const ModeCache& cache) {
        return resolve_user_context(users, cache, "owner").value().mode;
    }
};

TEST_F(ModeCacheTest, KeepsWhatItReadUntilTheCounterMoves) {
    auto cache = open_cache(counter);
    EXPECT_EQ(mode_of(*cache), auth::CognitiveMode::agent);
    // Written behind the cache's back (no counter bump): the cache still answers from memory,
    // which shows that a lookup does not read the store.
    auto direct = ModeStore::open(db);
    ASSERT_TRUE(direct.ok());
    ASSERT_TRUE((*direct)->set_mode("owner", auth::CognitiveMode::emulation).ok());
    EXPECT_EQ(mode_of(*cache), auth::CognitiveMode::agent);
    // Any change through a cache on the same counter makes every cache read the store again.
    auto other = open_cache(counter);
    ASSERT_TRUE(other->set_mode("owner", auth::CognitiveMode::dual).ok());
    EXPECT_EQ(mode_of(*cache), auth::CognitiveMode::dual);
    ASSERT_TRUE(other->clear_mode("owner").ok());
    EXPECT_EQ(mode_of(*cache), auth::CognitiveMode::agent);
}

TEST_F(ModeCacheTest, AModeSetInAnotherProcessAppliesToTheNextLookup) {
    auto cache = open_cache(counter);
    EXPECT_EQ(mode_of(*cache), auth::CognitiveMode::agent);  // now cached
    for (auth::CognitiveMode wanted :
         {auth::CognitiveMode::emulation, auth::CognitiveMode::dual, auth::CognitiveMode::agent}) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            // A separate process with its own store connection and its own mapping of the counter,
            // like `skillhost mode set` next to a running `skillhost serve`.
            auto store = ModeStore::open(db);
            if (!store) ::_exit(2);
            auto other = ModeCache::open(std::move(store.value()), counter);
            if (!other) ::_exit(3);
            ::_exit((*other)->set_mode("owner", wanted).ok() ? 0 : 4);
        }
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFEXITED(status));
        ASSERT_EQ(WEXITSTATUS(status), 0);
        EXPECT_EQ(mode_of(*cache), wanted);
    }
}

TEST_F(ModeCacheTest, WithoutACounterEveryLookupReadsTheStore) {
    auto cache = open_cache({});
    EXPECT_TRUE(cache->counter_file().empty());
    EXPECT_EQ(mode_of(*cache), auth::CognitiveMode::agent);
    auto direct = ModeStore::open(db);
    ASSERT_TRUE(direct.ok());
    ASSERT_TRUE((*direct)->set_mode("owner", auth::CognitiveMode::emulation).ok());
    EXPECT_EQ(mode_of(*cache), auth::CognitiveMode::emulation);
}

TEST_F(ModeCacheTest, ManyDistinctUsersStillAnswerCorrectly) {
    auto cache = open_cache(counter);
    auth::User u = users.users().front();
    for (std::size_t i = 0; i < ModeCache::max_entries + 10; ++i) {
        u.id = "user" + std::to_string(i);
        u.default_mode = i % 2 ? auth::CognitiveMode::dual : auth::CognitiveMode::agent;
        ASSERT_EQ(cache->effective_mode(u).value(), u.default_mode);
    }
    ASSERT_TRUE(cache->set_mode("user3", auth::CognitiveMode::emulation).ok());
    u.id = "user3";
    EXPECT_EQ(cache->effective_mode(u).value(), auth::CognitiveMode::emulation);
}

TEST_F(ModeCacheTest, ACounterThatIsNotAFileIsRefusedWithTheFileNamed) {
    std::filesystem::create_directories(counter);
    auto store = ModeStore::open(db);
    ASSERT_TRUE(store.ok());
    auto cache = ModeCache::open(std::move(store.value()), counter);
    ASSERT_FALSE(cache.ok());
    EXPECT_EQ(cache.error().code, "DATABASE_ERROR");
    EXPECT_NE(cache.error().message.find(counter.string()), std::string::npos) << cache.error().message;
}

// Two instances on one PostgreSQL database: each has its own cache, and no counter file reaches
// the other machine.
struct SharedModeCacheTest : ModeCacheTest {
    std::unique_ptr<ModeCache> open_shared(const std::string& url, std::chrono::milliseconds max_age) {
        auto store = ModeStore::open(db::StorageLocation::postgres(url));
        EXPECT_TRUE(store.ok()) << store.error().message;
        return ModeCache::open_shared(std::move(store.value()), max_age);
    }
};

TEST_F(SharedModeCacheTest, OnPostgresALookupDoesNotReadTheStoreWhileItsEntryIsFresh) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto cache = open_shared(url, std::chrono::minutes(10));
    EXPECT_EQ(mode_of(*cache), auth::CognitiveMode::agent);
    // Written behind every cache's back: the cached entry still answers, so lookups use memory.
    auto direct = ModeStore::open(db::StorageLocation::postgres(url));
    ASSERT_TRUE(direct.ok());
    ASSERT_TRUE((*direct)->set_mode("owner", auth::CognitiveMode::emulation).ok());
    EXPECT_EQ(mode_of(*cache), auth::CognitiveMode::agent);
}

TEST_F(SharedModeCacheTest, AModeChangedThroughOneInstanceHoldsForTheNextLookupOnAnother) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto first = open_shared(url, std::chrono::milliseconds(50));
    auto second = open_shared(url, std::chrono::milliseconds(50));
    for (auth::CognitiveMode wanted :
         {auth::CognitiveMode::emulation, auth::CognitiveMode::dual, auth::CognitiveMode::agent}) {
        (void)mode_of(*second);  // cached on the second instance
        ASSERT_TRUE(first->set_mode("owner", wanted).ok());
        EXPECT_EQ(mode_of(*second), wanted);
        EXPECT_EQ(mode_of(*first), wanted);
    }
    (void)mode_of(*first);
    ASSERT_TRUE(second->clear_mode("owner").ok());
    EXPECT_EQ(mode_of(*first), auth::CognitiveMode::agent);  // users.yaml's default again
}

TEST_F(SharedModeCacheTest, APostgresLocationGetsTheSharedCacheAndSqliteTheCounter) {
    auto on_sqlite = ModeCache::open(ModeStore::open(db).value(), db::StorageLocation::sqlite(db));
    ASSERT_TRUE(on_sqlite.ok()) << on_sqlite.error().message;
    EXPECT_EQ((*on_sqlite)->counter_file(), counter);
    SKILLHOST_POSTGRES_DATABASE(url);
    auto on_postgres = ModeCache::open(ModeStore::open(db::StorageLocation::postgres(url)).value(),
                                       db::StorageLocation::postgres(url));
    ASSERT_TRUE(on_postgres.ok()) << on_postgres.error().message;
    EXPECT_TRUE((*on_postgres)->counter_file().empty());
    EXPECT_EQ(mode_of(**on_postgres), auth::CognitiveMode::agent);
}

}  // namespace
}  // namespace skillhost::policy
