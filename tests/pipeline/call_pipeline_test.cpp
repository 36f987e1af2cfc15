// The policy-enforcing call path every caller uses, with a real fixture plugin, a real SQLite
// approval queue and a real audit log in a temporary home.
#include "exec/call_pipeline.hpp"
#include "plugin/plugin_loader.hpp"
#include "audit/audit_reader.hpp"
#include "policy/mode_store.hpp"
#include "policy/policy_config.hpp"
#include "auth/users.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace {

using namespace skillhost;
namespace fs = std::filesystem;

const char* kUsers = R"yaml(users:
  - {id: owner, role: owner, trust: supervised_auto}
  - {id: alice, role: standard, trust: supervised_auto}
  - {id: bob, role: standard, trust: observe}
  - {id: carol, role: standard, trust: bounded_auto}
  - {id: eve, role: guest, trust: adaptive_auto, default_mode: emulation}
)yaml";

const char* kPolicy = R"yaml(global:
  deny:
    - "add(a=13)"
  ask:
    - "echo(text=please-ask*)"
)yaml";

class CallPipelineTest : public ::testing::Test {
protected:
    skillhost::testing::TempDir home{"skillhost-pipeline"};
    std::shared_ptr<catalog::CatalogSnapshot> catalog;
    std::unique_ptr<auth::UserDirectory> users;
    std::unique_ptr<policy::ModeStore> modes;
    std::unique_ptr<audit::AuditLog> audit;
    std::unique_ptr<decisions::ApprovalQueue> approvals;
    std::unique_ptr<policy::PolicyEngine> engine;
    exec::Executor executor;
    std::unique_ptr<exec::CallPipeline> pipeline;
    // Lets a test change who a user is between request and approval (trust lowered, etc.).
    std::function<void(auth::UserContext&)> adjust_user = [](auth::UserContext&) {};

    void SetUp() override {
        plugin::LoaderOptions lo;
        lo.cache_dir = home / "plugin-cache";
        fs::create_directories(lo.cache_dir);
        plugin::PluginLoader loader(lo);
        auto echo = loader.load_file(fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo" / "echo.yaml");
        ASSERT_TRUE(echo.ok()) << echo.error().message;
        catalog = std::make_shared<catalog::CatalogSnapshot>(1, std::vector{echo.value()},
                                                             std::vector<plugin::PluginFailure>{});
        auto u = auth::parse_users(kUsers, home / "users.yaml", home / "workspace");
        ASSERT_TRUE(u.ok()) << u.error().message;
        users = std::make_unique<auth::UserDirectory>(std::move(u.value()));
        auto pc = policy::parse_policy_config(kPolicy, home / "policy.yaml");
        ASSERT_TRUE(pc.ok()) << pc.error().message;
        engine = std::make_unique<policy::PolicyEngine>(pc.value());
        modes = std::move(policy::ModeStore::open(home / "skillhost.db").value());
        audit = std::move(audit::AuditLog::open(home / "audit").value());
        decisions::ApprovalQueueOptions qo;
        qo.audit = audit.get();
        approvals = std::move(decisions::ApprovalQueue::open(home / "skillhost.db", qo).value());

        exec::PipelineParts parts;
        parts.policy = engine.get();
        parts.approvals = approvals.get();
        parts.audit = audit.get();
        parts.executor = &executor;
        parts.users_dir = home / "users";
        parts.resolve_user = [this](std::string_view id) -> Result<auth::UserContext> {
            auto ctx = policy::resolve_user_context(*users, *modes, id);
            if (ctx) adjust_user(ctx.value());
            return ctx;
        };
        pipeline = std::make_unique<exec::CallPipeline>(std::move(parts));
    }

    auth::UserContext user(const std::string& id) { return policy::resolve_user_context(*users, *modes, id).value(); }

    exec::CallOutcome call(const std::string& who, const std::string& skill, boost::json::value args) {
        exec::CallRequest r;
        r.skill_id = skill;
        r.args = std::move(args);
        r.user = user(who);
        return pipeline->call(*catalog, r);
    }

    decisions::Resolver resolver(const std::string& who) {
        auto u = user(who);
        return {u.user_id, u.role};
    }

    int audit_count(const std::string& kind, const std::string& skill) {
        audit::AuditFilter f;
        f.kind = kind;
        f.skill = skill;
        (void)audit->flush();
        return static_cast<int>(audit::read_audit_log(home / "audit", f).value().records.size());
    }
};

TEST_F(CallPipelineTest, AllowedCallRunsAndIsAudited) {
    auto out = call("alice", "echo", {{"text", "hi"}});
    ASSERT_TRUE(out.result.ok) << out.result.error.message;
    EXPECT_EQ(out.result.output.at("echo").at("text").as_string(), "hi");
    ASSERT_TRUE(out.decision.has_value());
    EXPECT_TRUE(out.decision->allowed());
    EXPECT_EQ(audit_count("decision", "echo"), 1);
    EXPECT_EQ(audit_count("skill_call", "echo"), 1);
}

TEST_F(CallPipelineTest, EmulationModeHidesAndRefusesWrites) {
    auto out = call("eve", "fail", {});
    ASSERT_FALSE(out.result.ok);
    EXPECT_EQ(out.result.error.code, "MODE_FORBIDS");
    auto visible = pipeline->visible_entries(*catalog, user("eve"));
    for (const auto* e : visible) EXPECT_TRUE(e->spec->annotations.read_only) << e->spec->id;
    EXPECT_FALSE(visible.empty());
    EXPECT_TRUE(call("eve", "echo", {{"text", "ok"}}).result.ok);
}

TEST_F(CallPipelineTest, DenyRuleNamesTheRuleAndItsLine) {
    auto out = call("owner", "add", {{"a", 13}, {"b", 1}});
    ASSERT_FALSE(out.result.ok);
    EXPECT_EQ(out.result.error.code, "DENIED_BY_RULE");
    EXPECT_NE(out.result.error.message.find("add(a=13)"), std::string::npos) << out.result.error.message;
    EXPECT_NE(out.result.error.message.find("policy.yaml:3"), std::string::npos) << out.result.error.message;
    EXPECT_TRUE(call("owner", "add", {{"a", 12}, {"b", 1}}).result.ok);
}

TEST_F(CallPipelineTest, ObserverCannotCallWrites) {
    auto out = call("bob", "fail", {});
    ASSERT_FALSE(out.result.ok);
    EXPECT_EQ(out.result.error.code, "TRUST_TOO_LOW");
}

TEST_F(CallPipelineTest, InvalidArgumentsAreRefusedBeforePolicyQueuesAnything) {
    auto out = call("alice", "echo", {{"text", "please-ask"}, {"bogus", 1}});
    ASSERT_FALSE(out.result.ok);
    EXPECT_EQ(out.result.error.code, "INVALID_ARGS");
    EXPECT_FALSE(out.approval_id.has_value());
    EXPECT_TRUE(approvals->list().value().empty());
}

TEST_F(CallPipelineTest, AskRuleQueuesThenApprovalRunsExactlyOnce) {
    auto out = call("alice", "echo", {{"text", "please-ask: hello"}});
    ASSERT_FALSE(out.result.ok);
    EXPECT_EQ(out.result.error.code, "APPROVAL_REQUIRED");
    ASSERT_TRUE(out.approval_id.has_value());
    EXPECT_EQ(out.result.error.details.at("approval_id").as_string(), *out.approval_id);
    EXPECT_EQ(audit_count("skill_call", "echo"), 0);

    auto approved = pipeline->approve(*catalog, *out.approval_id, resolver("alice"));
    ASSERT_TRUE(approved.ok()) << approved.error().message;
    EXPECT_TRUE(approved->result.ok);
    EXPECT_EQ(approved->record.state, decisions::ApprovalState::executed);
    EXPECT_EQ(approved->result.output.at("echo").at("text").as_string(), "please-ask: hello");

    auto again = pipeline->approve(*catalog, *out.approval_id, resolver("alice"));
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, "APPROVAL_ALREADY_RESOLVED");
    EXPECT_EQ(audit_count("skill_call", "echo"), 1);
}

TEST_F(CallPipelineTest, LadderAsksForMediumRiskAtSupervisedAutoButNotAtBoundedAuto) {
    auto alice = call("alice", "fail", {});
    EXPECT_EQ(alice.result.error.code, "APPROVAL_REQUIRED");
    auto carol = call("carol", "fail", {});
    EXPECT_EQ(carol.result.error.code, "ECHO_FAILED") << "bounded_auto runs medium risk; the skill itself fails";
}

TEST_F(CallPipelineTest, TwoRacingApproversRunTheCallOnce) {
    auto out = call("alice", "echo", {{"text", "please-ask race"}});
    ASSERT_TRUE(out.approval_id.has_value());
    std::atomic<int> ran{0}, refused{0};
    auto approve = [&](const std::string& who) {
        auto r = pipeline->approve(*catalog, *out.approval_id, resolver(who));
        (r.ok() ? ran : refused)++;
    };
    std::thread a(approve, "alice"), b(approve, "owner");
    a.join();
    b.join();
    EXPECT_EQ(ran.load(), 1);
    EXPECT_EQ(refused.load(), 1);
    EXPECT_EQ(audit_count("skill_call", "echo"), 1);
}

TEST_F(CallPipelineTest, ApprovalRechecksPolicyForTheUserAsTheyAreNow) {
    auto write = call("alice", "fail", {});
    ASSERT_TRUE(write.approval_id.has_value());
    // Between the request and the approval, alice is switched to emulation (read-only) mode.
    adjust_user = [](auth::UserContext& u) { u.mode = auth::CognitiveMode::emulation; };
    auto r = pipeline->approve(*catalog, *write.approval_id, resolver("alice"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->result.ok);
    EXPECT_EQ(r->result.error.code, "MODE_FORBIDS");
    EXPECT_EQ(r->record.state, decisions::ApprovalState::failed);
    EXPECT_NE(r->record.reason.find("re-check at approval failed"), std::string::npos) << r->record.reason;
    EXPECT_EQ(audit_count("skill_call", "fail"), 0) << "the skill must not run when the re-check fails";
}

TEST_F(CallPipelineTest, OnlyTheRequesterOrAnOwnerMayResolve) {
    auto out = call("alice", "fail", {});
    ASSERT_TRUE(out.approval_id.has_value());
    auto by_carol = pipeline->approve(*catalog, *out.approval_id, resolver("carol"));
    ASSERT_FALSE(by_carol.ok());
    EXPECT_EQ(by_carol.error().code, "NOT_ALLOWED_TO_RESOLVE");
    auto rejected = pipeline->reject(*out.approval_id, resolver("owner"), "not today");
    ASSERT_TRUE(rejected.ok()) << rejected.error().message;
    EXPECT_EQ(rejected->state, decisions::ApprovalState::rejected);
    EXPECT_EQ(rejected->reason, "not today");
    auto late = pipeline->approve(*catalog, *out.approval_id, resolver("owner"));
    ASSERT_FALSE(late.ok());
    EXPECT_EQ(late.error().code, "APPROVAL_ALREADY_RESOLVED");
}

TEST_F(CallPipelineTest, UnknownSkillIsNotFoundWithSuggestions) {
    auto out = call("alice", "ech", {});
    ASSERT_FALSE(out.result.ok);
    EXPECT_EQ(out.result.error.code, "SKILL_NOT_FOUND");
    EXPECT_FALSE(out.decision.has_value());
}

// A skill the caller's trust hides must not reveal its inputs: the trust check answers before
// argument validation could name a field.
TEST_F(CallPipelineTest, TrustIsCheckedBeforeArgumentsSoHiddenFieldsDoNotLeak) {
    // The echo fixture with `fail` raised to min_trust bounded_auto (above alice's supervised_auto).
    const fs::path fixture = fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo";
    const fs::path raised = home / "raised";
    fs::create_directories(raised);
    std::string manifest = skillhost::testing::read_file(fixture / "echo.yaml");
    const std::string anchor = "  - id: fail\n";
    ASSERT_NE(manifest.find(anchor), std::string::npos);
    manifest.replace(manifest.find(anchor), anchor.size(), anchor + "    min_trust: bounded_auto\n");
    skillhost::testing::write_file(raised / "echo.yaml", manifest);
    for (const auto& entry : fs::directory_iterator(fixture)) {
        if (entry.path().extension() == ".so") fs::copy_file(entry.path(), raised / entry.path().filename());
    }
    plugin::LoaderOptions lo;
    lo.cache_dir = home / "plugin-cache-raised";
    fs::create_directories(lo.cache_dir);
    plugin::PluginLoader loader(lo);
    auto plugin = loader.load_file(raised / "echo.yaml");
    ASSERT_TRUE(plugin.ok()) << plugin.error().message;
    catalog = std::make_shared<catalog::CatalogSnapshot>(2, std::vector{plugin.value()},
                                                         std::vector<plugin::PluginFailure>{});

    auto out = call("alice", "fail", {{"bogus", 1}});
    ASSERT_FALSE(out.result.ok);
    EXPECT_EQ(out.result.error.code, "TRUST_TOO_LOW");
    EXPECT_EQ(out.result.error.message.find("reason"), std::string::npos) << out.result.error.message;
    EXPECT_EQ(boost::json::serialize(out.result.to_json()).find("bogus"), std::string::npos)
        << boost::json::serialize(out.result.to_json());
}

// Calls refused before policy leave a trace: a caller probing skill ids or argument shapes is
// visible in the audit log.
TEST_F(CallPipelineTest, UnknownSkillsAndInvalidArgumentsAreAudited) {
    EXPECT_EQ(call("alice", "no_such_skill", {}).result.error.code, "SKILL_NOT_FOUND");
    EXPECT_EQ(call("alice", "echo", {{"bogus", 1}}).result.error.code, "INVALID_ARGS");
    (void)audit->flush();
    audit::AuditFilter f;
    f.kind = "decision";
    f.user = "alice";
    const auto records = audit::read_audit_log(home / "audit", f).value().records;
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].at("skill").as_string(), "no_such_skill");
    EXPECT_EQ(records[0].at("outcome").as_string(), "refused");
    EXPECT_EQ(records[0].at("code").as_string(), "SKILL_NOT_FOUND");
    EXPECT_EQ(records[1].at("skill").as_string(), "echo");
    EXPECT_EQ(records[1].at("step").as_string(), "arguments");
    EXPECT_EQ(records[1].at("code").as_string(), "INVALID_ARGS");
    EXPECT_EQ(audit_count("skill_call", "*"), 0);  // nothing ran
}

}  // namespace
