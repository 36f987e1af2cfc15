#include "policy/policy_config.hpp"
#include "support/unit_testing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::policy {
namespace {

using ::testing::HasSubstr;
using unit_testing::TempDir;

constexpr const char* full_policy = R"~(# policy for the tests
global:
  deny:
    - "fs_*(path=secrets/**)"
  ask:
    - shell_run
  allow:
    - "task_*"
users:
  bob:
    allow:
      - fs_write(path=notes/**, mode=append)
approvals:
  ttl: 2h
audit:
  fsync: always
  fsync_interval: 250ms
  max_value_chars: 64
)~";

TEST(PolicyFile, ReadsRulesWithTheirLocationsAndSettings) {
    TempDir dir;
    const auto file = dir.write("policy.yaml", full_policy);
    auto config = load_policy_config(file);
    ASSERT_TRUE(config.ok()) << config.error().message;
    ASSERT_EQ(config->global.deny.size(), 1u);
    const Rule& deny = config->global.deny.front();
    EXPECT_EQ(deny.kind, RuleKind::deny);
    EXPECT_EQ(deny.text, "fs_*(path=secrets/**)");
    EXPECT_EQ(deny.skill_pattern, "fs_*");
    ASSERT_EQ(deny.arguments.size(), 1u);
    EXPECT_EQ(deny.arguments[0].name, "path");
    EXPECT_EQ(deny.arguments[0].pattern, "secrets/**");
    EXPECT_EQ(deny.scope, "global");
    EXPECT_EQ(deny.line, 4);
    EXPECT_EQ(deny.location(), file.string() + ":4");
    EXPECT_EQ(config->global.ask.front().text, "shell_run");
    EXPECT_EQ(config->global.allow.front().line, 8);
    const RuleSet* bob = config->rules_for("bob");
    ASSERT_NE(bob, nullptr);
    ASSERT_EQ(bob->allow.size(), 1u);
    EXPECT_EQ(bob->allow[0].scope, "bob");
    EXPECT_EQ(bob->allow[0].line, 12);
    ASSERT_EQ(bob->allow[0].arguments.size(), 2u);
    EXPECT_EQ(bob->allow[0].arguments[1].name, "mode");
    EXPECT_EQ(bob->allow[0].arguments[1].pattern, "append");
    EXPECT_EQ(config->rules_for("alice"), nullptr);
    EXPECT_EQ(config->approval_ttl, std::chrono::hours(2));
    EXPECT_EQ(config->audit.fsync, audit::FsyncPolicy::always);
    EXPECT_EQ(config->audit.fsync_interval, std::chrono::milliseconds(250));
    EXPECT_EQ(config->audit.max_value_chars, 64u);
}

TEST(PolicyFile, AMissingFileMeansTheBuiltInDefaultAndAnEmptyOneNoRules) {
    TempDir dir;
    auto missing = load_policy_config(dir.path() / "policy.yaml");
    ASSERT_TRUE(missing.ok());
    EXPECT_TRUE(missing->file.empty());
    ASSERT_EQ(missing->global.deny.size(), 2u);
    EXPECT_EQ(missing->global.deny[0].text, "fs_*(path=**/.ssh/**)");
    EXPECT_EQ(missing->global.deny[1].text, "fs_*(path=**/*.pem)");
    EXPECT_EQ(missing->approval_ttl, std::chrono::hours(24));
    EXPECT_EQ(missing->audit.fsync, audit::FsyncPolicy::interval);
    auto empty = load_policy_config(dir.write("policy.yaml", "# nothing yet\n"));
    ASSERT_TRUE(empty.ok()) << empty.error().message;
    EXPECT_EQ(empty->global.size(), 0u);
}

TEST(PolicyFile, ApproversAreRequiredUnlessTheFileSaysOtherwise) {
    auto defaults = parse_policy_config("approvals:\n  ttl: 1h\n", "policy.yaml");
    ASSERT_TRUE(defaults.ok()) << defaults.error().message;
    EXPECT_TRUE(defaults->require_approver);
    EXPECT_TRUE(defaults->stdio_elicitation_approves);
    auto relaxed = parse_policy_config("approvals:\n  require_approver: false\n  stdio_elicitation_approves: false\n",
                                       "policy.yaml");
    ASSERT_TRUE(relaxed.ok()) << relaxed.error().message;
    EXPECT_FALSE(relaxed->require_approver);
    EXPECT_FALSE(relaxed->stdio_elicitation_approves);
}

TEST(RuleText, QuotedPatternsMayContainCommasAndParentheses) {
    Rule rule;
    ASSERT_FALSE(parse_rule_text(R"~(note_add ( title = "a, b (c)" , tag=x ))~", rule).has_value());
    EXPECT_EQ(rule.skill_pattern, "note_add");
    ASSERT_EQ(rule.arguments.size(), 2u);
    EXPECT_EQ(rule.arguments[0].pattern, "a, b (c)");
    EXPECT_EQ(rule.arguments[1].pattern, "x");
}

struct BadRuleCase {
    const char* name;
    const char* text;
    std::size_t offset;
    const char* fragment;
};

class BadRuleText : public ::testing::TestWithParam<BadRuleCase> {};

TEST_P(BadRuleText, NamesTheProblemAndWhereItIs) {
    Rule rule;
    auto problem = parse_rule_text(GetParam().text, rule);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->offset, GetParam().offset);
    EXPECT_THAT(problem->message, HasSubstr(GetParam().fragment));
}

INSTANTIATE_TEST_SUITE_P(Cases, BadRuleText,
                         ::testing::Values(BadRuleCase{"empty", "", 0, "empty rule"},
                                           BadRuleCase{"bad_start", "(path=x)", 0, "starts with a skill id"},
                                           BadRuleCase{"unclosed", "fs_write(path=notes/**", 22, "missing `)`"},
                                           BadRuleCase{"no_equals", "fs_write(path)", 13, "expected `=`"},
                                           BadRuleCase{"empty_args", "fs_write()", 9, "empty argument list"},
                                           BadRuleCase{"duplicate", "fs_write(path=a, path=b)", 17, "appears twice"},
                                           BadRuleCase{"trailing", "fs_write(path=a) extra", 17, "after the rule"},
                                           BadRuleCase{"unterminated_quote", "fs_write(path=\"abc)", 19,
                                                       "unterminated"},
                                           BadRuleCase{"space_in_id", "fs write", 3, "after the rule"}),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

struct BadPolicyCase {
    const char* name;
    const char* yaml;
    const char* location;
    const char* fragment;
};

class BadPolicyFile : public ::testing::TestWithParam<BadPolicyCase> {};

TEST_P(BadPolicyFile, IsRejectedWithFileLineAndColumn) {
    auto config = parse_policy_config(GetParam().yaml, "policy.yaml");
    ASSERT_FALSE(config.ok());
    EXPECT_EQ(config.error().code, "POLICY_INVALID");
    EXPECT_THAT(config.error().message, HasSubstr(GetParam().location));
    EXPECT_THAT(config.error().message, HasSubstr(GetParam().fragment));
    EXPECT_THAT(config.error().message, HasSubstr("fix policy.yaml"));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadPolicyFile,
    ::testing::Values(
        BadPolicyCase{"unknown_top_key", "globals:\n  deny: [x]\n", "policy.yaml:1:1", "unknown key `globals`"},
        BadPolicyCase{"unknown_kind", "global:\n  forbid: [x]\n", "policy.yaml:2:3", "expected deny, ask or allow"},
        // The column points at the problem inside the rule: `fs_write(path` + 1.
        BadPolicyCase{"rule_syntax_plain", "global:\n  deny:\n    - fs_write(path)\n", "policy.yaml:3:20",
                      "expected `=`"},
        BadPolicyCase{"rule_syntax_quoted", "global:\n  deny:\n    - \"fs_write(path)\"\n", "policy.yaml:3:21",
                      "expected `=`"},
        BadPolicyCase{"rules_not_a_list", "global:\n  deny: fs_write\n", "policy.yaml:2:9", "expected a list"},
        BadPolicyCase{"bad_ttl", "approvals:\n  ttl: forever\n", "policy.yaml:2:8", "expected a duration"},
        BadPolicyCase{"bad_fsync", "audit:\n  fsync: sometimes\n", "policy.yaml:2:10", "never, always or interval"},
        BadPolicyCase{"bad_require_approver", "approvals:\n  require_approver: maybe\n", "policy.yaml:2:21",
                      "expected true or false"},
        BadPolicyCase{"bad_user_id", "users:\n  Bob Smith:\n    deny: [x]\n", "policy.yaml:2:3", "not a valid user id"},
        BadPolicyCase{"syntax", "global:\n  deny: [x\n", "policy.yaml:3:1", "YAML syntax error"},
        // yaml-cpp 0.7 would allocate until the process dies on this line; refused with its position.
        BadPolicyCase{"comma_root", "--- ,\n", "policy.yaml:1:5", "YAML syntax error"}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

TEST(PolicyFile, RulesForUnknownUsersAreReportedWithTheirLine) {
    auto config = parse_policy_config("users:\n  owner:\n    allow: [x]\n  mallory:\n    deny: [y]\n", "policy.yaml");
    ASSERT_TRUE(config.ok()) << config.error().message;
    auto users = auth::builtin_users("/tmp/ws");
    const Status status = check_policy_users(*config, users);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, "POLICY_INVALID");
    EXPECT_THAT(status.error().message, HasSubstr("policy.yaml:4:3"));
    EXPECT_THAT(status.error().message, HasSubstr("unknown user `mallory`"));
    EXPECT_THAT(status.error().message, HasSubstr("known users: owner"));
}

}  // namespace
}  // namespace skillhost::policy

namespace skillhost::policy {
namespace {

// The configuration the project ships must load and agree with itself.
TEST(ShippedConfiguration, EtcUsersAndPolicyAreValid) {
    const std::filesystem::path etc = std::filesystem::path(SKILLHOST_TEST_FIXTURES_SOURCE_DIR) / "../../etc";
    auto users = auth::load_users(etc / "users.yaml", "/tmp/workspace");
    ASSERT_TRUE(users.ok()) << users.error().message;
    EXPECT_FALSE(users->file().empty());
    EXPECT_EQ(users->first_owner().id, "owner");
    auto policy = load_policy_config(etc / "policy.yaml");
    ASSERT_TRUE(policy.ok()) << policy.error().message;
    EXPECT_FALSE(policy->file.empty());
    EXPECT_TRUE(check_policy_users(*policy, *users).ok());
}

// A fresh home (no policy.yaml) must be exactly as closed as the file a new user reads.
TEST(ShippedConfiguration, TheBuiltInDefaultPolicyIsWhatEtcPolicyShips) {
    const std::filesystem::path etc = std::filesystem::path(SKILLHOST_TEST_FIXTURES_SOURCE_DIR) / "../../etc";
    auto shipped = load_policy_config(etc / "policy.yaml");
    ASSERT_TRUE(shipped.ok()) << shipped.error().message;
    auto builtin = default_policy_config();
    ASSERT_TRUE(builtin.ok()) << builtin.error().message;
    for (RuleKind kind : {RuleKind::deny, RuleKind::ask, RuleKind::allow}) {
        std::vector<std::string> a, b;
        for (const auto& r : shipped->global.of(kind)) a.push_back(r.text);
        for (const auto& r : builtin->global.of(kind)) b.push_back(r.text);
        EXPECT_EQ(a, b) << to_string(kind);
    }
    EXPECT_FALSE(shipped->global.deny.empty());
    EXPECT_TRUE(shipped->users.empty());
    EXPECT_EQ(shipped->approval_ttl, builtin->approval_ttl);
}

}  // namespace
}  // namespace skillhost::policy
