#include "policy/mode_store.hpp"
#include "auth/user_context.hpp"
#include "support/unit_testing.hpp"
#include "support/postgres_server.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::policy {
namespace {

using ::testing::HasSubstr;
using unit_testing::TempDir;

// On the SQLite file of a fresh home and on a fresh PostgreSQL database.
class ModeStoreOnEachBackend : public ::skillhost::testing::OnEachBackend {
protected:
    TempDir dir;
};

SKILLHOST_ON_EACH_BACKEND(ModeStoreOnEachBackend);

TEST_P(ModeStoreOnEachBackend, AChosenModeSurvivesReopeningAndOverridesTheDefault) {
    const auto db = location();
    auto users = auth::parse_users(
        "users:\n  - {id: owner, role: owner, trust: supervised_auto, default_mode: agent}\n"
        "  - {id: kid, role: guest, trust: suggest, default_mode: emulation}\n",
        dir.path() / "users.yaml", dir.path() / "ws");
    ASSERT_TRUE(users.ok()) << users.error().message;
    {
        auto modes = ModeStore::open(db);
        ASSERT_TRUE(modes.ok()) << modes.error().message;
        EXPECT_EQ(*(*modes)->effective_mode(*users->find("owner")), auth::CognitiveMode::agent);
        EXPECT_EQ(*(*modes)->effective_mode(*users->find("kid")), auth::CognitiveMode::emulation);
        EXPECT_EQ(*(*modes)->stored_mode("owner"), std::nullopt);
        ASSERT_TRUE((*modes)->set_mode("owner", auth::CognitiveMode::emulation).ok());
        ASSERT_TRUE((*modes)->set_mode("owner", auth::CognitiveMode::dual).ok());  // the latest choice wins
    }
    auto reopened = ModeStore::open(db);  // on PostgreSQL: what another instance sees
    ASSERT_TRUE(reopened.ok());
    EXPECT_EQ(*(*reopened)->effective_mode(*users->find("owner")), auth::CognitiveMode::dual);
    auto context = resolve_user_context(*users, **reopened, "owner");
    ASSERT_TRUE(context.ok());
    EXPECT_EQ(context->mode, auth::CognitiveMode::dual);
    EXPECT_EQ(context->role, auth::Role::owner);
    EXPECT_EQ(context->trust, manifest::TrustLevel::supervised_auto);
    EXPECT_EQ(context->workspace, dir.path() / "ws/owner");
    ASSERT_TRUE((*reopened)->clear_mode("owner").ok());
    EXPECT_EQ(*(*reopened)->effective_mode(*users->find("owner")), auth::CognitiveMode::agent);
}

TEST(UserContext, UnknownUserIsNamedWithTheKnownOnes) {
    TempDir dir;
    auto modes = ModeStore::open(dir.path() / "skillhost.db");
    ASSERT_TRUE(modes.ok());
    const auto users = auth::builtin_users(dir.path());
    auto context = resolve_user_context(users, **modes, "mallory");
    ASSERT_FALSE(context.ok());
    EXPECT_EQ(context.error().code, "USER_NOT_FOUND");
    EXPECT_THAT(context.error().message, HasSubstr("no user `mallory`"));
    EXPECT_THAT(context.error().message, HasSubstr("known users: owner"));
}

TEST(ModeStore, AnUnusableDatabasePathIsAnError) {
    TempDir dir;
    dir.write("blocker", "a file where the home directory should be");
    auto modes = ModeStore::open(dir.path() / "blocker/skillhost.db");
    ASSERT_FALSE(modes.ok());
    EXPECT_EQ(modes.error().code, "DATABASE_ERROR");
    EXPECT_THAT(modes.error().message, HasSubstr("blocker"));
}

}  // namespace
}  // namespace skillhost::policy
