// Users' secrets on each backend: set, read back only by the host, listed by name, replaced and
// deleted; the database holds no plaintext, instances sharing the key file share the secrets, and
// an instance with another key says so instead of injecting garbage.
#include "app/user_secret_store.hpp"
#include "auth/error_codes.hpp"
#include "db/backend_connection.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

namespace skillhost::app {
namespace {

class UserSecretStoreTest : public ::skillhost::testing::OnEachBackend {
protected:
    std::shared_ptr<UserSecretStore> open(const std::filesystem::path& key_file) {
        auto opened = UserSecretStore::open(location(), key_file);
        EXPECT_TRUE(opened) << opened.error().message;
        return opened ? opened.value() : nullptr;
    }
};

SKILLHOST_ON_EACH_BACKEND(UserSecretStoreTest);

TEST_P(UserSecretStoreTest, ASecretIsSealedKeptPerUserReplacedAndDeleted) {
    auto store = open(home / "secret.key");
    ASSERT_TRUE(store);
    // Nothing set: no key is needed to say so.
    auto none = store->secret("alice", "GITHUB_TOKEN");
    ASSERT_TRUE(none) << none.error().message;
    EXPECT_FALSE(none->has_value());

    ASSERT_TRUE(store->set("alice", "GITHUB_TOKEN", "ghp_alice-first", "alice"));
    ASSERT_TRUE(store->set("bob", "GITHUB_TOKEN", "ghp_bob-only-his", "owner"));
    EXPECT_EQ(store->secret("alice", "GITHUB_TOKEN")->value_or(""), "ghp_alice-first");
    EXPECT_EQ(store->secret("bob", "GITHUB_TOKEN")->value_or(""), "ghp_bob-only-his");
    ASSERT_TRUE(store->set("alice", "GITHUB_TOKEN", "ghp_alice-second", "alice"));
    EXPECT_EQ(store->secret("alice", "GITHUB_TOKEN")->value_or(""), "ghp_alice-second");

    auto listed = store->list("alice");
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ((*listed)[0].name, "GITHUB_TOKEN");
    EXPECT_EQ((*listed)[0].updated_by, "alice");

    // The rows hold sealed text only.
    auto connection = db::BackendConnection::open(location());
    ASSERT_TRUE(connection);
    auto rows = (*connection)->run("reading", "SELECT user_id, name, key_id, nonce, sealed FROM user_secrets", {});
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), 2u);
    for (std::size_t i = 0; i < rows->size(); ++i) {
        for (std::size_t column = 0; column < 5; ++column)
            EXPECT_EQ(rows->text(i, column).find("ghp_"), std::string::npos);
    }

    ASSERT_TRUE(store->remove("alice", "GITHUB_TOKEN"));
    EXPECT_FALSE(store->secret("alice", "GITHUB_TOKEN")->has_value());
    auto again = store->remove("alice", "GITHUB_TOKEN");
    ASSERT_FALSE(again);
    EXPECT_TRUE(again.error().is(errors::kSecretNotFound));
    EXPECT_EQ(store->secret("bob", "GITHUB_TOKEN")->value_or(""), "ghp_bob-only-his");
}

TEST_P(UserSecretStoreTest, InstancesShareSecretsOnlyWhenTheyShareTheKey) {
    auto first = open(home / "secret.key");
    ASSERT_TRUE(first);
    ASSERT_TRUE(first->set("alice", "API_KEY", "key-of-alice-1", "alice"));
    auto same_key = open(home / "secret.key");
    EXPECT_EQ(same_key->secret("alice", "API_KEY")->value_or(""), "key-of-alice-1");
    auto other_key = open(home / "other.key");
    auto no_key = other_key->secret("alice", "API_KEY");
    ASSERT_FALSE(no_key);
    EXPECT_TRUE(no_key.error().is(errors::kSecretKeyUnavailable));
    EXPECT_NE(no_key.error().message.find("share the key file"), std::string::npos) << no_key.error().message;
    auto other = open(home / "other.key");
    ASSERT_TRUE(other->set("bob", "API_KEY", "key-of-bob-12", "bob"));  // makes other.key
    auto mismatch = other->secret("alice", "API_KEY");
    ASSERT_FALSE(mismatch);
    EXPECT_TRUE(mismatch.error().is(errors::kSecretKeyMismatch));
    EXPECT_NE(mismatch.error().message.find("share the key file"), std::string::npos) << mismatch.error().message;
}

TEST_P(UserSecretStoreTest, NamesAndValuesThatCannotBeInjectedOrRedactedAreRefused) {
    auto store = open(home / "secret.key");
    ASSERT_TRUE(store);
    for (const char* value : {"short", "two\nlines-here", "tab\there-long", ""}) {
        auto refused = store->set("alice", "API_KEY", value, "alice");
        ASSERT_FALSE(refused) << value;
        EXPECT_TRUE(refused.error().is(errors::kSecretInvalid));
    }
    EXPECT_FALSE(store->set("alice", "API_KEY", std::string(8193, 'x'), "alice"));
    for (const char* name : {"", "1ABC", "with-dash", "sp ace"})
        EXPECT_FALSE(store->set("alice", name, "long-enough-value", "alice")) << name;
    auto listed = store->list("alice");
    ASSERT_TRUE(listed);
    EXPECT_TRUE(listed->empty());
}

}  // namespace
}  // namespace skillhost::app
