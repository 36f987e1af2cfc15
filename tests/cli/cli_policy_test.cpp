// Issue 4's user stories through the real binary and the built-in plugins: approval for a write,
// approving it runs it once, emulation hides writes, and `policy explain` tells each story.
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

using skillhost::testing::ProcessResult;
using skillhost::testing::read_file;
using skillhost::testing::run_process;
using skillhost::testing::TempDir;
using skillhost::testing::write_file;

class CliPolicyTest : public ::testing::Test {
protected:
    TempDir dir{"skillhost-cli-policy"};
    std::string config = (dir / "etc/skillhost.yaml").string();
    std::string home = (dir / "home").string();

    void SetUp() override {
        write_file(config, "plugin_dirs: []\n");
        write_file(dir / "etc/users.yaml",
                   "users:\n"
                   "  - {id: owner, role: owner, trust: supervised_auto}\n"
                   "  - {id: alice, role: standard, trust: supervised_auto}\n"
                   "  - {id: eve, role: guest, trust: supervised_auto, default_mode: emulation}\n");
        write_file(dir / "etc/policy.yaml", "global:\n  deny:\n    - \"fs_write(path=secrets/**)\"\n");
    }

    ProcessResult skillhost(std::vector<std::string> args) {
        args.insert(args.begin(), SKILLHOST_BINARY);
        for (const char* extra : {"--config", config.c_str(), "--home", home.c_str()}) args.emplace_back(extra);
        return run_process(args);
    }
};

TEST_F(CliPolicyTest, WriteNeedsApprovalAndApprovingRunsItOnce) {
    auto call = skillhost({"call", "fs_write", "--user", "alice", "--json", "--args",
                           R"({"path":"notes/plan.md","content":"ship it","create_dirs":true})"});
    ASSERT_EQ(call.exit_code, 1) << call.out << call.err;
    auto v = boost::json::parse(call.out).as_object();
    ASSERT_EQ(v.at("error").at("code").as_string(), "APPROVAL_REQUIRED") << call.out;
    std::string id(v.at("error").at("details").at("approval_id").as_string());
    auto file = dir / "home/workspace/alice/notes/plan.md";
    EXPECT_FALSE(std::filesystem::exists(file)) << "nothing may be written before approval";

    auto list = skillhost({"approvals", "list", "--user", "alice"});
    EXPECT_NE(list.out.find(id), std::string::npos) << list.out;

    auto approve = skillhost({"approvals", "approve", id, "--user", "alice"});
    ASSERT_EQ(approve.exit_code, 0) << approve.out << approve.err;
    EXPECT_EQ(read_file(file), "ship it");

    auto again = skillhost({"approvals", "approve", id, "--user", "alice"});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_NE(again.err.find("APPROVAL_ALREADY_RESOLVED"), std::string::npos) << again.err;

    auto show = skillhost({"approvals", "show", id, "--json"});
    ASSERT_EQ(show.exit_code, 0) << show.err;
    EXPECT_EQ(boost::json::parse(show.out).at("state").as_string(), "executed");

    auto audit = skillhost({"audit", "tail", "--skill", "fs_write", "--kind", "skill_call", "--json"});
    ASSERT_EQ(audit.exit_code, 0) << audit.err;
    EXPECT_EQ(std::count(audit.out.begin(), audit.out.end(), '\n'), 1) << "executed exactly once:\n" << audit.out;
}

TEST_F(CliPolicyTest, RejectedApprovalNeverRuns) {
    auto call = skillhost(
        {"call", "fs_write", "--user", "alice", "--json", "--args", R"({"path":"notes/no.md","content":"x"})"});
    std::string id(boost::json::parse(call.out).at("error").at("details").at("approval_id").as_string());
    auto reject = skillhost({"approvals", "reject", id, "--reason", "not now"});  // as the owner
    ASSERT_EQ(reject.exit_code, 0) << reject.err;
    auto approve = skillhost({"approvals", "approve", id, "--user", "alice"});
    EXPECT_EQ(approve.exit_code, 1);
    EXPECT_FALSE(std::filesystem::exists(dir / "home/workspace/alice/notes/no.md"));
}

TEST_F(CliPolicyTest, EmulationUserCannotSeeOrCallWrites) {
    auto list = skillhost({"skills", "list", "--user", "eve"});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    EXPECT_EQ(list.out.find("fs_write"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("fs_read"), std::string::npos) << list.out;
    auto call = skillhost({"call", "fs_write", "--user", "eve", "--args", R"({"path":"a.md","content":"x"})"});
    EXPECT_EQ(call.exit_code, 1);
    EXPECT_NE(call.err.find("MODE_FORBIDS"), std::string::npos) << call.err;
}

TEST_F(CliPolicyTest, PolicyExplainTellsEachStory) {
    auto ask = skillhost(
        {"policy", "explain", "fs_write", "--user", "alice", "--args", R"({"path":"notes/a.md","content":"x"})"});
    ASSERT_EQ(ask.exit_code, 0) << ask.err;
    EXPECT_NE(ask.out.find("ask"), std::string::npos) << ask.out;
    EXPECT_NE(ask.out.find("supervised_auto"), std::string::npos) << ask.out;

    auto deny = skillhost({"policy", "explain", "fs_write", "--user", "alice", "--json", "--args",
                           R"({"path":"secrets/key.txt","content":"x"})"});
    ASSERT_EQ(deny.exit_code, 0) << deny.err;
    EXPECT_NE(deny.out.find("DENIED_BY_RULE"), std::string::npos) << deny.out;
    EXPECT_NE(deny.out.find("policy.yaml:3"), std::string::npos) << deny.out;

    auto mode =
        skillhost({"policy", "explain", "fs_write", "--user", "eve", "--args", R"({"path":"a.md","content":"x"})"});
    EXPECT_NE(mode.out.find("MODE_FORBIDS"), std::string::npos) << mode.out;

    auto allow = skillhost({"policy", "explain", "fs_read", "--user", "alice", "--args", R"({"path":"a.md"})"});
    EXPECT_NE(allow.out.find("allow"), std::string::npos) << allow.out;
    // What the plugin may touch, from its manifest, beside what policy decides.
    EXPECT_NE(allow.out.find("plugin 'fs' permissions (manifest): workspace read_write"), std::string::npos)
        << allow.out;
    const auto grants = boost::json::parse(deny.out).at("plugin_permissions");
    EXPECT_EQ(grants.at("workspace"), "read_write");
    EXPECT_EQ(grants.at("network"), false);
}

TEST_F(CliPolicyTest, ModeSetPersistsAndBadModesAreRefused) {
    EXPECT_EQ(skillhost({"mode", "set", "emulation", "--user", "alice"}).exit_code, 0);
    auto show = skillhost({"mode", "show", "--user", "alice", "--json"});
    EXPECT_EQ(boost::json::parse(show.out).at("mode").as_string(), "emulation");
    auto bad = skillhost({"mode", "set", "turbo", "--user", "alice"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("dual, agent, emulation"), std::string::npos) << bad.err;
    auto nobody = skillhost({"mode", "show", "--user", "mallory"});
    EXPECT_EQ(nobody.exit_code, 2);
    EXPECT_NE(nobody.err.find("USER_NOT_FOUND"), std::string::npos) << nobody.err;
}

}  // namespace
