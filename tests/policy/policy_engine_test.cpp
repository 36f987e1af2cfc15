#include "policy/call_path_rules.hpp"
#include "policy/policy_engine.hpp"
#include "support/unit_testing.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::policy {
namespace {

using manifest::Risk;
using manifest::TrustLevel;
using ::testing::HasSubstr;
using unit_testing::make_skill;

auth::UserContext user(std::string id, TrustLevel trust, auth::CognitiveMode mode = auth::CognitiveMode::agent,
                       auth::Role role = auth::Role::standard) {
    return auth::UserContext{std::move(id), role, trust, mode, {}};
}

PolicyEngine engine_from(const char* yaml) {
    auto config = parse_policy_config(yaml, "policy.yaml");
    EXPECT_TRUE(config.ok()) << config.error().message;
    return PolicyEngine(config.ok() ? std::move(*config) : PolicyConfig{});
}

const boost::json::value no_args = boost::json::object{};

TEST(Visibility, EmulationSeesAndCallsOnlyReadOnlySkills) {
    const PolicyEngine engine(PolicyConfig{});
    const auto fs_write = unit_testing::fs_write_skill();
    const auto fs_read = unit_testing::fs_read_skill();
    const auto emulating = user("eve", TrustLevel::adaptive_auto, auth::CognitiveMode::emulation);
    EXPECT_FALSE(engine.is_visible(emulating, fs_write));
    EXPECT_TRUE(engine.is_visible(emulating, fs_read));
    for (auto mode : {auth::CognitiveMode::agent, auth::CognitiveMode::dual}) {
        EXPECT_TRUE(engine.is_visible(user("eve", TrustLevel::adaptive_auto, mode), fs_write));
    }
    const Decision denied = engine.decide(emulating, fs_write, boost::json::parse(R"({"path":"a","content":"b"})"));
    EXPECT_TRUE(denied.denied());
    EXPECT_EQ(denied.step, DecisionStep::visibility);
    EXPECT_EQ(denied.code.name, "MODE_FORBIDS");
    EXPECT_THAT(denied.reason, HasSubstr("emulation mode"));
    const Error error = denied.to_error();
    EXPECT_EQ(error.code, "MODE_FORBIDS");
    EXPECT_THAT(error.message, HasSubstr("skillhost mode set agent --user eve"));
    const Decision read = engine.decide(emulating, fs_read, boost::json::parse(R"({"path":"a"})"));
    EXPECT_TRUE(read.allowed());
    EXPECT_EQ(read.code.name, "");
}

TEST(Visibility, ModeIsCheckedBeforeAnAllowRule) {
    const auto engine = engine_from("global:\n  allow: [fs_write]\n");
    const Decision d = engine.decide(user("eve", TrustLevel::adaptive_auto, auth::CognitiveMode::emulation),
                                     unit_testing::fs_write_skill(), no_args);
    EXPECT_EQ(d.code.name, "MODE_FORBIDS");
}

TEST(Rules, DenyNamesTheRuleAndItsFileAndLine) {
    const auto engine = engine_from("global:\n  deny:\n    - fs_*(path=secrets/**)\n");
    const auto args = boost::json::parse(R"({"path":"secrets/id_rsa","content":"x"})");
    const Decision d = engine.decide(user("bob", TrustLevel::adaptive_auto), unit_testing::fs_write_skill(), args);
    EXPECT_TRUE(d.denied());
    EXPECT_EQ(d.step, DecisionStep::rule);
    EXPECT_EQ(d.code.name, "DENIED_BY_RULE");
    EXPECT_THAT(d.reason, HasSubstr("`fs_*(path=secrets/**)` at policy.yaml:3"));
    ASSERT_TRUE(d.rule.has_value());
    EXPECT_EQ(d.rule->kind, RuleKind::deny);
    EXPECT_EQ(d.rule->line, 3);
    const Error error = d.to_error();
    EXPECT_EQ(error.details.at("rule").at("file").as_string(), "policy.yaml");
    EXPECT_EQ(error.details.at("rule").at("line").as_int64(), 3);
    // Other paths are not denied.
    const auto ok_args = boost::json::parse(R"({"path":"notes/a","content":"x"})");
    EXPECT_TRUE(
        engine.decide(user("bob", TrustLevel::adaptive_auto), unit_testing::fs_write_skill(), ok_args).allowed());
}

TEST(Rules, DenyWinsOverAskWhichWinsOverAllow) {
    const auto engine = engine_from(R"~(global:
  allow: ["fs_*"]
  ask: ["fs_write"]
  deny: ["fs_write(path=secrets/**)"]
)~");
    const auto alice = user("alice", TrustLevel::adaptive_auto);
    const auto secret = boost::json::parse(R"({"path":"secrets/k","content":"x"})");
    const auto note = boost::json::parse(R"({"path":"notes/k","content":"x"})");
    EXPECT_EQ(engine.decide(alice, unit_testing::fs_write_skill(), secret).code.name, "DENIED_BY_RULE");
    const Decision ask = engine.decide(alice, unit_testing::fs_write_skill(), note);
    EXPECT_TRUE(ask.needs_approval());
    EXPECT_EQ(ask.code.name, "APPROVAL_REQUIRED");
    EXPECT_EQ(ask.rule->text, "fs_write");
    const Decision allow = engine.decide(alice, make_skill("fs_delete", {Risk::high}), note);
    EXPECT_TRUE(allow.allowed());
    EXPECT_EQ(allow.rule->text, "fs_*");
}

TEST(Rules, UserRulesComeBeforeGlobalOnesWithinAKindButNotAcrossKinds) {
    const auto engine = engine_from(R"~(global:
  ask: ["task_*"]
  deny: ["fs_*"]
users:
  bob:
    ask: ["task_add"]
    allow: ["task_*", "fs_*"]
    deny: ["fs_write"]
)~");
    const auto bob = user("bob", TrustLevel::adaptive_auto);
    const Decision ask = engine.decide(bob, make_skill("task_add"), no_args);
    EXPECT_EQ(ask.rule->scope, "bob");  // bob's ask is reported before the global one
    EXPECT_EQ(ask.rule->line, 6);
    // The global ask beats bob's allow: kinds are evaluated deny -> ask -> allow.
    const Decision list = engine.decide(bob, make_skill("task_list"), no_args);
    EXPECT_TRUE(list.needs_approval());
    EXPECT_EQ(list.rule->scope, "global");
    const Decision deny = engine.decide(bob, unit_testing::fs_write_skill(), no_args);
    EXPECT_EQ(deny.rule->scope, "bob");
    EXPECT_EQ(deny.rule->line, 8);
    // Another user only gets the global rules.
    const Decision carol = engine.decide(user("carol", TrustLevel::adaptive_auto), make_skill("task_list"), no_args);
    EXPECT_EQ(carol.rule->scope, "global");
    EXPECT_EQ(engine.decide(user("carol", TrustLevel::adaptive_auto), make_skill("notes_add"), no_args).rule,
              std::nullopt);
}

TEST(Rules, AllowSkipsTheLadderButNotApprovalTrustOrMode) {
    const auto engine = engine_from("global:\n  allow: [\"*\"]\n");
    const auto suggesting = user("sam", TrustLevel::suggest);
    const Decision skipped = engine.decide(suggesting, make_skill("deploy", {Risk::high}), no_args);
    EXPECT_TRUE(skipped.allowed());
    EXPECT_THAT(skipped.reason, HasSubstr("skips the auto-approval ladder"));
    EXPECT_EQ(engine.decide(suggesting, make_skill("deploy", {Risk::low, false, TrustLevel::observe, true}), no_args)
                  .code.name,
              "APPROVAL_REQUIRED");
    EXPECT_EQ(engine.decide(suggesting, make_skill("deploy", {Risk::low, false, TrustLevel::bounded_auto}), no_args)
                  .code.name,
              "TRUST_TOO_LOW");
    EXPECT_EQ(engine.decide(user("sam", TrustLevel::observe), make_skill("deploy"), no_args).code.name,
              "TRUST_TOO_LOW");
}

TEST(Trust, BelowMinTrustNamesBothLevels) {
    const PolicyEngine engine(PolicyConfig{});
    const Decision d = engine.decide(user("bob", TrustLevel::suggest),
                                     make_skill("shell_run", {Risk::high, false, TrustLevel::bounded_auto}), no_args);
    EXPECT_TRUE(d.denied());
    EXPECT_EQ(d.step, DecisionStep::trust);
    EXPECT_EQ(d.code.name, "TRUST_TOO_LOW");
    EXPECT_THAT(d.reason, HasSubstr("requires trust bounded_auto"));
    EXPECT_THAT(d.reason, HasSubstr("bob has suggest"));
    const Error error = d.to_error();
    EXPECT_EQ(error.details.at("required_trust").as_string(), "bounded_auto");
    EXPECT_EQ(error.details.at("current_trust").as_string(), "suggest");
}

TEST(Trust, ObserversMayOnlyCallReadOnlySkills) {
    const PolicyEngine engine(PolicyConfig{});
    const auto observer = user("olive", TrustLevel::observe);
    EXPECT_TRUE(engine.decide(observer, unit_testing::fs_read_skill(), no_args).allowed());
    const Decision d = engine.decide(observer, make_skill("note_add", {Risk::low}), no_args);
    EXPECT_EQ(d.code.name, "TRUST_TOO_LOW");
    EXPECT_EQ(d.required_trust, TrustLevel::suggest);
    EXPECT_THAT(d.reason, HasSubstr("observers may only call read-only skills"));
}

struct LadderCase {
    TrustLevel trust;
    Risk risk;
    bool runs;
};

class Ladder : public ::testing::TestWithParam<LadderCase> {};

TEST_P(Ladder, AutoApprovesByRiskAndTrust) {
    const PolicyEngine engine(PolicyConfig{});
    const auto& c = GetParam();
    const Decision d = engine.decide(user("u", c.trust), make_skill("act", {c.risk}), no_args);
    EXPECT_EQ(d.allowed(), c.runs) << d.reason;
    EXPECT_EQ(d.step, DecisionStep::approval);
    EXPECT_EQ(d.code.name, c.runs ? "" : "APPROVAL_REQUIRED");
    // Read-only calls never ask, whatever the risk.
    EXPECT_TRUE(engine.decide(user("u", c.trust), make_skill("look", {c.risk, true}), no_args).allowed());
}

INSTANTIATE_TEST_SUITE_P(Table, Ladder,
                         ::testing::Values(LadderCase{TrustLevel::suggest, Risk::low, false},
                                           LadderCase{TrustLevel::suggest, Risk::medium, false},
                                           LadderCase{TrustLevel::suggest, Risk::high, false},
                                           LadderCase{TrustLevel::supervised_auto, Risk::low, true},
                                           LadderCase{TrustLevel::supervised_auto, Risk::medium, false},
                                           LadderCase{TrustLevel::supervised_auto, Risk::high, false},
                                           LadderCase{TrustLevel::bounded_auto, Risk::low, true},
                                           LadderCase{TrustLevel::bounded_auto, Risk::medium, true},
                                           LadderCase{TrustLevel::bounded_auto, Risk::high, false},
                                           LadderCase{TrustLevel::adaptive_auto, Risk::low, true},
                                           LadderCase{TrustLevel::adaptive_auto, Risk::medium, true},
                                           LadderCase{TrustLevel::adaptive_auto, Risk::high, true}));

TEST(Approval, RequiresApprovalAlwaysAsksEvenAtTheTop) {
    const PolicyEngine engine(PolicyConfig{});
    const Decision d =
        engine.decide(user("root", TrustLevel::adaptive_auto, auth::CognitiveMode::agent, auth::Role::owner),
                      make_skill("payments_send", {Risk::low, false, TrustLevel::observe, true}), no_args);
    EXPECT_TRUE(d.needs_approval());
    EXPECT_THAT(d.reason, HasSubstr("requires_approval"));
}

TEST(Approval, StandardUserAtSupervisedAutoWritingAFileIsQueued) {
    const PolicyEngine engine(PolicyConfig{});
    const Decision d = engine.decide(user("bob", TrustLevel::supervised_auto), unit_testing::fs_write_skill(),
                                     boost::json::parse(R"({"path":"notes/a","content":"x"})"));
    EXPECT_EQ(d.code.name, "APPROVAL_REQUIRED");
    const Error error = d.to_error("apr-0123456789abcdef");
    EXPECT_EQ(error.code, "APPROVAL_REQUIRED");
    EXPECT_THAT(error.message, HasSubstr("skillhost approvals approve apr-0123456789abcdef"));
    EXPECT_EQ(error.details.at("approval_id").as_string(), "apr-0123456789abcdef");
    EXPECT_EQ(error.details.at("step").as_string(), "approval");
}

TEST(Explain, TellsTheStoryOfEveryStep) {
    const auto engine = engine_from(R"~(global:
  deny: ["fs_write(path=secrets/**)"]
  ask: ["fs_delete"]
  allow: ["fs_write(path=notes/**)"]
)~");
    const auto bob = user("bob", TrustLevel::supervised_auto);
    const Explanation e = engine.explain(bob, unit_testing::fs_write_skill(),
                                         boost::json::parse(R"({"path":"notes/a.md","content":"x"})"));
    ASSERT_EQ(e.steps.size(), 4u);
    EXPECT_EQ(e.steps[0].verdict, StepVerdict::passed);
    EXPECT_EQ(e.steps[1].verdict, StepVerdict::passed);
    EXPECT_EQ(e.steps[2].verdict, StepVerdict::passed);
    EXPECT_EQ(e.steps[3].verdict, StepVerdict::decided);
    EXPECT_TRUE(e.decision.allowed());
    const std::string text = e.to_text();
    EXPECT_THAT(text, HasSubstr("deny rule `fs_write(path=secrets/**)` (global) at policy.yaml:2: the skill matches "
                                "but path=notes/a.md does not match secrets/**"));
    EXPECT_THAT(text, HasSubstr("allow rule `fs_write(path=notes/**)` (global) at policy.yaml:4: matches"));
    EXPECT_THAT(text, HasSubstr("decision: allow at step approval"));
    EXPECT_EQ(e.to_json().at("steps").as_array().size(), 4u);

    const Explanation mode = engine.explain(user("bob", TrustLevel::supervised_auto, auth::CognitiveMode::emulation),
                                            unit_testing::fs_write_skill(), no_args);
    EXPECT_EQ(mode.steps[0].verdict, StepVerdict::decided);
    for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(mode.steps[i].verdict, StepVerdict::not_reached);
    EXPECT_THAT(mode.to_text(), HasSubstr("decision: deny (MODE_FORBIDS) at step visibility"));

    const Explanation queued = engine.explain(bob, unit_testing::fs_write_skill(),
                                              boost::json::parse(R"({"path":"other/a.md","content":"x"})"));
    EXPECT_EQ(queued.decision.code.name, "APPROVAL_REQUIRED");
    EXPECT_THAT(queued.to_text(), HasSubstr("path=other/a.md does not match notes/**"));
    EXPECT_THAT(queued.to_text(), HasSubstr("supervised_auto runs low risk without asking"));
    // explain and decide always agree.
    EXPECT_EQ(
        engine.decide(bob, unit_testing::fs_write_skill(), boost::json::parse(R"({"path":"other/a.md","content":"x"})"))
            .code,
        queued.decision.code);
}

}  // namespace
}  // namespace skillhost::policy

namespace skillhost::policy {
namespace {

TEST(CallPathRules, WithholdsPathsDenyRulesAndUnapprovedAskRulesMatch) {
    const PolicyEngine engine = engine_from(
        "global:\n  deny: [\"fs_*(path=**/.ssh/**)\", \"fs_*(path=**/*.pem)\"]\n  ask: "
        "[\"fs_read(path=private/**)\"]\n");
    const auto spec = unit_testing::fs_read_skill();
    const auth::UserContext alice = user("alice", TrustLevel::suggest);
    auto rules = CallPathRules::for_call(engine, alice, spec, boost::json::value{{"path", "."}});
    ASSERT_NE(rules, nullptr);
    EXPECT_TRUE(rules->allows("docs/notes.txt"));
    EXPECT_FALSE(rules->allows(".ssh"));
    EXPECT_FALSE(rules->allows("home/.ssh/id_ed25519"));
    EXPECT_FALSE(rules->allows("deep/server.pem"));
    EXPECT_FALSE(rules->allows("private/diary.txt"));  // asked for, never approved for this call
    EXPECT_FALSE(rules->allows(""));
    // A call the approver let into private/ may touch what is inside it; deny rules still hold.
    auto approved = CallPathRules::for_call(engine, alice, spec, boost::json::value{{"path", "private"}});
    ASSERT_NE(approved, nullptr);
    EXPECT_TRUE(approved->allows("private/diary.txt"));
    EXPECT_FALSE(approved->allows("private/key.pem"));
}

TEST(CallPathRules, NothingToCheckWithoutPathRulesOrPathInputs) {
    const PolicyEngine open_engine(PolicyConfig{});
    EXPECT_EQ(CallPathRules::for_call(open_engine, user("alice", TrustLevel::suggest), unit_testing::fs_read_skill(),
                                      boost::json::value{{"path", "."}}),
              nullptr);
    const PolicyEngine engine = engine_from("global:\n  deny: [\"*(path=**/.ssh/**)\"]\n");
    EXPECT_EQ(CallPathRules::for_call(engine, user("alice", TrustLevel::suggest), unit_testing::make_skill("note_add"),
                                      boost::json::value{{"title", "x"}}),
              nullptr);
}

}  // namespace
}  // namespace skillhost::policy
