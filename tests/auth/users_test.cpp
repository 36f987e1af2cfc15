#include "auth/api_token.hpp"
#include "auth/users.hpp"
#include "support/unit_testing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace skillhost::auth {
namespace {

using ::testing::HasSubstr;
using unit_testing::TempDir;

constexpr const char* sha256_of_abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

TEST(UsersFile, ReadsEveryFieldAndResolvesWorkspaces) {
    TempDir dir;
    const auto file = dir.write("etc/users.yaml", std::string(R"(users:
  - id: alice
    display_name: Alice Example
    role: owner
    trust: bounded_auto
    workspace: work/alice
    default_mode: dual
    api_token_sha256: )") + "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD" +
                                                      R"~(
  - id: bob
    role: standard
    trust: suggest
  - id: guest
    role: guest
    trust: observe
    workspace: /srv/guest
    default_mode: emulation
)~");
    auto users = load_users(file, dir.path() / "home/workspace");
    ASSERT_TRUE(users.ok()) << users.error().message;
    ASSERT_EQ(users->users().size(), 3u);
    const User* alice = users->find("alice");
    ASSERT_NE(alice, nullptr);
    EXPECT_EQ(alice->display_name, "Alice Example");
    EXPECT_EQ(alice->role, Role::owner);
    EXPECT_EQ(alice->trust, manifest::TrustLevel::bounded_auto);
    EXPECT_EQ(alice->workspace, (dir.path() / "etc/work/alice").lexically_normal());
    EXPECT_EQ(alice->default_mode, CognitiveMode::dual);
    EXPECT_EQ(alice->api_token_sha256, sha256_of_abc);  // stored lowercase
    EXPECT_EQ(alice->line, 2);
    const User* bob = users->find("bob");
    ASSERT_NE(bob, nullptr);
    EXPECT_EQ(bob->display_name, "bob");
    EXPECT_EQ(bob->default_mode, CognitiveMode::agent);
    EXPECT_EQ(bob->workspace, (dir.path() / "home/workspace/bob").lexically_normal());
    EXPECT_EQ(users->find("guest")->workspace, std::filesystem::path("/srv/guest"));
    EXPECT_EQ(users->first_owner().id, "alice");
    EXPECT_EQ(users->find("carol"), nullptr);
    EXPECT_EQ(users->file(), file);
}

TEST(UsersFile, TildeExpandsToHome) {
    TempDir dir;
    ::setenv("HOME", dir.path().c_str(), 1);
    auto users = parse_users("users: [{id: owner, role: owner, trust: suggest, workspace: ~/ws}]",
                             dir.path() / "users.yaml", dir.path());
    ASSERT_TRUE(users.ok()) << users.error().message;
    EXPECT_EQ(users->find("owner")->workspace, dir.path() / "ws");
}

TEST(UsersFile, MissingFileGivesTheBuiltInOwner) {
    TempDir dir;
    auto users = load_users(dir.path() / "nope/users.yaml", dir.path() / "workspace");
    ASSERT_TRUE(users.ok());
    ASSERT_EQ(users->users().size(), 1u);
    const User& owner = users->users().front();
    EXPECT_EQ(owner.id, "owner");
    EXPECT_EQ(owner.role, Role::owner);
    EXPECT_EQ(owner.trust, manifest::TrustLevel::supervised_auto);
    EXPECT_EQ(owner.default_mode, CognitiveMode::agent);
    EXPECT_EQ(owner.workspace, dir.path() / "workspace/owner");
    EXPECT_TRUE(users->file().empty());
}

struct BadUsersCase {
    const char* name;
    const char* yaml;
    const char* location;  // "users.yaml:L:C"
    const char* fragment;
};

class BadUsersFile : public ::testing::TestWithParam<BadUsersCase> {};

TEST_P(BadUsersFile, IsRejectedWithFileLineAndColumn) {
    const auto& c = GetParam();
    auto users = parse_users(c.yaml, "users.yaml", "/tmp/ws");
    ASSERT_FALSE(users.ok());
    EXPECT_EQ(users.error().code, "USERS_INVALID");
    EXPECT_THAT(users.error().message, HasSubstr(c.location));
    EXPECT_THAT(users.error().message, HasSubstr(c.fragment));
    EXPECT_THAT(users.error().message, HasSubstr("fix users.yaml"));
    EXPECT_TRUE(users.error().details.at("problems").is_array());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadUsersFile,
    ::testing::Values(
        BadUsersCase{"unknown_key", "users:\n  - id: a\n    role: owner\n    trust: suggest\n    colour: blue\n",
                     "users.yaml:5:5", "unknown key `colour`"},
        BadUsersCase{"bad_role", "users:\n  - id: a\n    role: admin\n    trust: suggest\n", "users.yaml:3:11",
                     "`admin` is not a role"},
        BadUsersCase{"bad_trust", "users:\n  - id: a\n    role: owner\n    trust: total\n", "users.yaml:4:12",
                     "`total` is not a trust level"},
        BadUsersCase{"missing_id", "users:\n  - role: owner\n    trust: suggest\n", "users.yaml:2:5",
                     "users[0].id: missing"},
        BadUsersCase{"duplicate_id",
                     "users:\n  - {id: a, role: owner, trust: suggest}\n  - {id: a, role: guest, trust: observe}\n",
                     "users.yaml:3:10", "duplicate user id `a`"},
        BadUsersCase{"no_owner", "users:\n  - {id: a, role: standard, trust: suggest}\n", "users.yaml:2:3",
                     "no user has role owner"},
        BadUsersCase{"bad_mode", "users:\n  - {id: a, role: owner, trust: suggest, default_mode: sleepy}\n",
                     "users.yaml:2:56", "not a cognitive mode"},
        BadUsersCase{"plain_token", "users:\n  - {id: a, role: owner, trust: suggest, api_token_sha256: hunter2}\n",
                     "users.yaml:2:60", "never the token itself"},
        BadUsersCase{"bad_id", "users:\n  - {id: Alice Smith, role: owner, trust: suggest}\n", "users.yaml:2:10",
                     "not a valid user id"},
        BadUsersCase{"top_level_typo", "user:\n  - {id: a, role: owner, trust: suggest}\n", "users.yaml:1:1",
                     "unknown key `user`"},
        BadUsersCase{"syntax", "users:\n  - {id: a, role: owner\n", "users.yaml:3:1", "YAML syntax error"},
        // yaml-cpp 0.7 would allocate until the process dies on this line; refused with its position.
        BadUsersCase{"comma_root", "users:\n,  - {id: a}\n", "users.yaml:2:1", "YAML syntax error"}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

TEST(UsersFile, ReportsEveryProblemNotJustTheFirst) {
    auto users = parse_users("users:\n  - {id: a, role: boss, trust: suggest}\n  - {id: b, role: owner, trust: lots}\n",
                             "users.yaml", "/tmp/ws");
    ASSERT_FALSE(users.ok());
    EXPECT_EQ(users.error().details.at("problems").as_array().size(), 2u);
    EXPECT_THAT(users.error().message, HasSubstr("and 1 more problem"));
}

TEST(ApiToken, HashIsSha256Hex) {
    EXPECT_EQ(hash_api_token("abc"), sha256_of_abc);
}

TEST(ApiToken, VerifiesOnlyTheRightTokenAgainstWellFormedHashes) {
    const std::string hash = hash_api_token("s3cret-token");
    EXPECT_TRUE(verify_api_token("s3cret-token", hash));
    EXPECT_FALSE(verify_api_token("s3cret-tokeN", hash));
    EXPECT_FALSE(verify_api_token("", hash));
    std::string upper = hash;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_TRUE(verify_api_token("s3cret-token", upper));
    EXPECT_FALSE(verify_api_token("s3cret-token", ""));
    EXPECT_FALSE(verify_api_token("s3cret-token", hash.substr(1)));
    EXPECT_FALSE(verify_api_token("s3cret-token", "s3cret-token"));
}

TEST(ApiToken, AuthenticateFindsTheUserWhoseHashMatches) {
    const std::string yaml =
        "users:\n  - {id: a, role: owner, trust: suggest, api_token_sha256: " + hash_api_token("token-a") +
        "}\n  - {id: b, role: standard, trust: suggest, api_token_sha256: " + hash_api_token("token-b") +
        "}\n  - {id: c, role: guest, trust: observe}\n";
    auto users = parse_users(yaml, "users.yaml", "/tmp/ws");
    ASSERT_TRUE(users.ok()) << users.error().message;
    ASSERT_NE(users->authenticate("token-b"), nullptr);
    EXPECT_EQ(users->authenticate("token-b")->id, "b");
    EXPECT_EQ(users->authenticate("token-a")->id, "a");
    EXPECT_EQ(users->authenticate("token-c"), nullptr);
    EXPECT_EQ(users->authenticate(""), nullptr);
}

}  // namespace
}  // namespace skillhost::auth
