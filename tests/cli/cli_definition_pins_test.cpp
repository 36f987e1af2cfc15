// Issue 37, "Pinned definitions", through the real binary: each `skillhost` command is a host that
// starts anew, so the fixture server that comes back changed (--rug-pull-file) is a rug pull across
// a restart. The pins are in the home's SQLite file; the changed and the new tool wait for
// definition_change decisions that owners decide with `skillhost definition_changes`.
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
using skillhost::testing::ProcessResult;
using skillhost::testing::read_file;
using skillhost::testing::run_process;
using skillhost::testing::TempDir;
using skillhost::testing::write_file;

class CliDefinitionPinsTest : public ::testing::Test {
protected:
    TempDir dir{"skillhost-cli-pins"};
    std::string config = (dir / "etc/skillhost.yaml").string();
    std::string home = (dir / "home").string();
    std::filesystem::path log = dir / "received.log";

    void SetUp() override {
        // The fixture keeps its rug-pull marker beside its declaration, which its sandbox would not
        // let it write: these tests are about pins (the sandbox: foreign_sandbox_test.cpp).
        write_file(config, "plugin_dirs: [" + (dir / "plugins").string() + "]\nisolation:\n  sandbox: \"off\"\n");
        write_file(dir / "etc/users.yaml",
                   "users:\n  - {id: owner, role: owner, trust: supervised_auto}\n"
                   "  - {id: bob, role: standard, trust: supervised_auto}\n");
        declare(false);
    }

    // The fixture server, changed from its second start on (echo's description, a new tool).
    void declare(bool echo_needs_approval) {
        const std::string server =
            std::string(SKILLHOST_TEST_FIXTURES_BINARY_DIR) + "/foreign_mcp/skillhost_fixture_mcp_server";
        write_file(dir / "plugins/fixture.yaml",
                   "kind: mcp_server\nname: fixture\ntransport: stdio\ncommand: " + server + "\nargs: [--log, " +
                       log.string() + ", --rug-pull-file, " + (dir / "started-once").string() +
                       "]\n"
                       "defaults: {risk: low, min_trust: observe, requires_approval: false}\n"
                       "skills:\n  - id: echo\n    requires_approval: " +
                       (echo_needs_approval ? "true" : "false") + "\n");
    }

    ProcessResult skillhost(std::vector<std::string> args) {
        args.insert(args.begin(), SKILLHOST_BINARY);
        for (const char* extra : {"--config", config.c_str(), "--home", home.c_str()}) args.emplace_back(extra);
        return run_process(args);
    }

    json::object json_of(const ProcessResult& result) {
        json::value parsed = json::parse(result.out);
        EXPECT_TRUE(parsed.is_object()) << result.out << result.err;
        return parsed.is_object() ? parsed.as_object() : json::object();
    }

    // The error of a failed command's --json output.
    json::object error_of(const ProcessResult& result) {
        EXPECT_NE(result.exit_code, 0) << result.out << result.err;
        json::object out = json_of(result);
        return out.contains("error") ? out.at("error").as_object() : json::object();
    }

    std::string code_of(const ProcessResult& result) {
        json::object error = error_of(result);
        return error.contains("code") ? std::string(error.at("code").as_string()) : std::string("(none)");
    }

    // A refused call's decision id (and that it was refused for its definition).
    std::string refused_decision(const std::string& skill, const std::string& args = R"({"message":"hi"})") {
        auto call = skillhost({"call", skill, "--json", "--args", args});
        json::object error = error_of(call);
        EXPECT_EQ(error["code"], "UPSTREAM_DEFINITION_CHANGED") << call.out << call.err;
        const json::value* id = error["details"].as_object().if_contains("decision_id");
        EXPECT_NE(id, nullptr) << call.out;
        EXPECT_NE(std::string(error["message"].as_string()).find("skillhost definition_changes show"),
                  std::string::npos)
            << call.out;
        return id != nullptr ? std::string(id->as_string()) : std::string();
    }

    json::array changes(const std::string& skill) {
        auto list = skillhost({"definition_changes", "list", "--all", "--json"});
        EXPECT_EQ(list.exit_code, 0) << list.out << list.err;
        json::array out;
        const json::object listed = json_of(list);
        for (const auto& change : listed.at("definition_changes").as_array())
            if (change.at("skill") == skill.c_str()) out.push_back(change);
        return out;
    }

    std::string received() { return std::filesystem::exists(log) ? read_file(log) : std::string(); }
};

TEST_F(CliDefinitionPinsTest, ARugPullAcrossARestartIsRefusedUntilAnOwnerApprovesTheDiff) {
    auto first = skillhost({"skills", "list", "--json"});  // the first listing ever: pinned
    ASSERT_EQ(first.exit_code, 0) << first.out << first.err;

    const std::string id = refused_decision("fixture__echo");
    ASSERT_EQ(id.rfind("def-", 0), 0u) << id;
    EXPECT_EQ(received().find("\"tools/call\""), std::string::npos) << "a changed tool is never called";
    EXPECT_EQ(refused_decision("fixture__echo"), id) << "the same change has one decision";

    json::array echo = changes("fixture__echo");
    ASSERT_EQ(echo.size(), 1u) << json::serialize(echo);
    const json::object& change = echo[0].as_object();
    EXPECT_EQ(change.at("state"), "pending");
    EXPECT_EQ(change.at("tool"), "echo");
    bool description_diffed = false;
    for (const auto& entry : change.at("diff").as_array())
        description_diffed |= entry.at("field") == "description" && entry.at("change") == "changed";
    EXPECT_TRUE(description_diffed) << json::serialize(change);

    auto show = skillhost({"definition_changes", "show", id});
    ASSERT_EQ(show.exit_code, 0) << show.out << show.err;
    EXPECT_NE(show.out.find("description: changed"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("next: skillhost definition_changes approve " + id), std::string::npos) << show.out;

    auto approve = skillhost({"definition_changes", "approve", id, "--json"});
    ASSERT_EQ(approve.exit_code, 0) << approve.out << approve.err;
    EXPECT_EQ(json_of(approve)["definition_change"].at("state"), "pinned") << approve.out;

    auto call = skillhost({"call", "fixture__echo", "--json", "--args", R"({"message":"after approval"})"});
    ASSERT_EQ(call.exit_code, 0) << call.out << call.err;
    EXPECT_NE(call.out.find("after approval"), std::string::npos) << call.out;
    EXPECT_EQ(changes("fixture__echo").size(), 1u) << "an approved change asks nothing more";

    auto audit = skillhost({"audit", "tail", "--kind", "definition_change", "--json"});
    EXPECT_NE(audit.out.find(id), std::string::npos) << audit.out << audit.err;
}

TEST_F(CliDefinitionPinsTest, ANewToolIsBlockedUntilApprovedAndARejectedOneStaysRefused) {
    ASSERT_EQ(skillhost({"skills", "list"}).exit_code, 0);
    auto listed = skillhost({"skills", "list", "--json"});
    EXPECT_NE(listed.out.find("fixture__exfiltrate"), std::string::npos) << "a new tool is shown: " << listed.out;

    const std::string id = refused_decision("fixture__exfiltrate", R"({"data":"x"})");
    json::array exfiltrate = changes("fixture__exfiltrate");
    ASSERT_EQ(exfiltrate.size(), 1u) << json::serialize(exfiltrate);
    EXPECT_EQ(exfiltrate[0].at("old_hash"), "") << "never pinned";
    EXPECT_NE(json::serialize(exfiltrate[0].at("change")).find("new tool"), std::string::npos);

    auto reject = skillhost({"definition_changes", "reject", id, "--reason", "it sends data away", "--json"});
    ASSERT_EQ(reject.exit_code, 0) << reject.out << reject.err;
    EXPECT_EQ(json_of(reject)["definition_change"].at("state"), "rejected");

    auto call = skillhost({"call", "fixture__exfiltrate", "--json", "--args", R"({"data":"x"})"});
    json::object error = error_of(call);
    EXPECT_EQ(error["code"], "UPSTREAM_DEFINITION_CHANGED") << call.out;
    EXPECT_EQ(error["details"].at("decision_id"), id.c_str()) << call.out;
    EXPECT_EQ(error["details"].at("decision_state"), "rejected") << call.out;
    EXPECT_EQ(changes("fixture__exfiltrate").size(), 1u) << "a rejected change is not asked again";
    EXPECT_EQ(received().find("\"name\":\"exfiltrate\""), std::string::npos) << received();
}

TEST_F(CliDefinitionPinsTest, DecidingGivesClearErrors) {
    ASSERT_EQ(skillhost({"skills", "list"}).exit_code, 0);
    const std::string id = refused_decision("fixture__echo");

    EXPECT_EQ(code_of(skillhost({"definition_changes", "approve", "def-0000000000000000", "--json"})),
              "DEFINITION_CHANGE_NOT_FOUND");
    EXPECT_EQ(code_of(skillhost({"definition_changes", "approve", id, "--user", "bob", "--json"})),
              "NOT_ALLOWED_TO_PIN");
    EXPECT_EQ(code_of(skillhost({"definition_changes", "show", id, "--user", "bob", "--json"})),
              "DEFINITION_CHANGE_NOT_FOUND")
        << "a standard user does not see the host's decisions";
    auto reject = skillhost({"definition_changes", "reject", id, "--reason", "no", "--json"});
    ASSERT_EQ(reject.exit_code, 0) << reject.out << reject.err;
    auto again = skillhost({"definition_changes", "approve", id, "--json"});
    EXPECT_EQ(code_of(again), "DEFINITION_CHANGE_ALREADY_DECIDED");
    EXPECT_EQ(error_of(again)["details"].at("state"), "rejected") << again.out;
    EXPECT_EQ(code_of(skillhost({"approvals", "show", id, "--json"})), "APPROVAL_NOT_FOUND")
        << "a definition change is not an approval";
}

TEST_F(CliDefinitionPinsTest, ACallApprovedAgainstOneDefinitionDoesNotRunAgainstAnother) {
    declare(true);
    auto asked = skillhost({"call", "fixture__echo", "--json", "--args", R"({"message":"approved before"})"});
    ASSERT_EQ(code_of(asked), "APPROVAL_REQUIRED") << asked.out << asked.err;
    const std::string approval(error_of(asked)["details"].at("approval_id").as_string());
    auto shown = skillhost({"approvals", "show", approval, "--json"});
    ASSERT_EQ(shown.exit_code, 0) << shown.out << shown.err;
    const std::string approved_hash(json_of(shown)["definition_hash"].as_string());
    EXPECT_EQ(approved_hash.size(), 64u) << shown.out;

    // The server comes back changed; its change is even approved. The call was approved against the
    // old definition, so it does not run against the new one.
    ASSERT_EQ(skillhost({"skills", "list"}).exit_code, 0);
    json::array pending = changes("fixture__echo");
    ASSERT_EQ(pending.size(), 1u);
    for (const auto& one : pending)
        ASSERT_EQ(skillhost({"definition_changes", "approve", std::string(one.at("id").as_string())}).exit_code, 0);
    auto approve = skillhost({"approvals", "approve", approval, "--json"});
    EXPECT_NE(approve.exit_code, 0) << approve.out << approve.err;
    EXPECT_NE(approve.out.find("UPSTREAM_DEFINITION_CHANGED"), std::string::npos) << approve.out;
    EXPECT_EQ(received().find("approved before"), std::string::npos) << "never sent to the server";
    auto after = skillhost({"approvals", "show", approval, "--json"});
    EXPECT_EQ(json_of(after)["state"], "failed") << after.out;
}

}  // namespace
