// API tokens on both backends through auth::ApiTokenStore: only hashes stored, scopes kept,
// lookups by the presented token, revocation by a hash prefix.
#include "auth/api_token_store.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

namespace skillhost::auth {
namespace {

using testing::TempDir;

class ApiTokensOnEachBackend : public testing::OnEachBackend {};

SKILLHOST_ON_EACH_BACKEND(ApiTokensOnEachBackend);

TEST_P(ApiTokensOnEachBackend, AnIssuedTokenGrantsItsUserAndScopesAndIsStoredOnlyAsItsHash) {
    auto store = ApiTokenStore::open(location());
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto scopes = Scopes::parse("call,approve");
    ASSERT_TRUE(scopes.ok());
    auto issued = (*store)->issue("alice", "laptop", *scopes);
    ASSERT_TRUE(issued.ok()) << issued.error().message;
    EXPECT_NE(issued->token, issued->sha256);

    auto grant = (*store)->grant_for(issued->token);
    ASSERT_TRUE(grant.ok()) << grant.error().message;
    ASSERT_TRUE(grant->has_value());
    EXPECT_EQ((*grant)->user_id, "alice");
    EXPECT_EQ((*grant)->credential.scopes.to_text(), "call,approve");
    EXPECT_FALSE((*store)->grant_for(issued->token + "x")->has_value());
    EXPECT_FALSE((*store)->grant_for("")->has_value());

    // A second handle (another instance on PostgreSQL) sees the same token.
    auto other = ApiTokenStore::open(location());
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(*(*other)->user_for(issued->token), std::optional<std::string>("alice"));

    auto listed = (*store)->list("alice");
    ASSERT_TRUE(listed.ok());
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ(listed->front().token, "");  // the secret is never read back
    EXPECT_EQ(listed->front().sha256, issued->sha256);
    EXPECT_EQ(listed->front().label, "laptop");
    EXPECT_TRUE((*store)->list("bob")->empty());
}

TEST_P(ApiTokensOnEachBackend, RevokingByAHashPrefixRemovesOnlyThatToken) {
    auto store = ApiTokenStore::open(location());
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto kept = (*store)->issue("alice", "kept");
    auto gone = (*store)->issue("bob", "gone");
    ASSERT_TRUE(kept.ok() && gone.ok());
    EXPECT_EQ((*store)->list({})->size(), 2u);
    EXPECT_EQ((*store)->revoke("12345").error().code, "INVALID_TOKEN_ID");  // too short
    EXPECT_EQ((*store)->revoke("'; DROP TABLE api_tokens; --").error().code, "INVALID_TOKEN_ID");
    auto removed = (*store)->revoke(gone->sha256.substr(0, 12));
    ASSERT_TRUE(removed.ok()) << removed.error().message;
    EXPECT_EQ(*removed, 1);
    EXPECT_FALSE((*store)->grant_for(gone->token)->has_value());
    EXPECT_TRUE((*store)->grant_for(kept->token)->has_value());
    EXPECT_EQ(*(*store)->revoke(gone->sha256.substr(0, 12)), 0);
}

}  // namespace
}  // namespace skillhost::auth
