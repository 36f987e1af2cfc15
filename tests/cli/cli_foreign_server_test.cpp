// Issue 37 through the real binary: a foreign MCP server (the fixture server, a real process)
// declared beside the plugins; its tools are listed and called through the one pipeline, under the
// approval queue, deny rules on array path inputs and the audit log.
#include "mcp/mcp_client_process.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using skillhost::testing::ProcessResult;
using skillhost::testing::read_file;
using skillhost::testing::run_process;
using skillhost::testing::TempDir;
using skillhost::testing::write_file;

class CliForeignServerTest : public ::testing::Test {
protected:
    TempDir dir{"skillhost-cli-foreign"};
    std::string config = (dir / "etc/skillhost.yaml").string();
    std::string home = (dir / "home").string();
    std::filesystem::path log = dir / "received.log";

    void SetUp() override {
        // The server writes what it reads to a log beside its declaration, which its sandbox would
        // not allow: these tests are about policy (the sandbox: foreign_sandbox_test.cpp, and the
        // daemon's foreign-server tests, which run it sandboxed).
        write_file(config, "plugin_dirs: [" + (dir / "plugins").string() + "]\nisolation:\n  sandbox: \"off\"\n");
        write_file(dir / "etc/users.yaml", "users:\n  - {id: owner, role: owner, trust: supervised_auto}\n");
        write_file(dir / "etc/policy.yaml",
                   "global:\n  deny:\n    - \"fixture__read_paths(paths=secret/**)\"\n"
                   "    - \"fixture__list_links(dir=**/secret*)\"\n");
        const std::string server =
            std::string(SKILLHOST_TEST_FIXTURES_BINARY_DIR) + "/foreign_mcp/skillhost_fixture_mcp_server";
        write_file(dir / "plugins/fixture.yaml",
                   "kind: mcp_server\n"
                   "name: fixture\n"
                   "transport: stdio\n"
                   "command: " +
                       server +
                       "\n"
                       "args: [--log, " +
                       log.string() +
                       "]\n"
                       "skills:\n"
                       "  - id: echo\n"
                       "    risk: low\n"
                       "    min_trust: observe\n"
                       "    requires_approval: false\n"
                       "  - id: read_paths\n"
                       "    risk: low\n"
                       "    requires_approval: false\n"
                       "    path_inputs: [\"paths[]\"]\n"
                       "  - id: list_links\n"
                       "    risk: low\n"
                       "    requires_approval: false\n"
                       "    path_inputs: [dir]\n");
    }

    ProcessResult skillhost(std::vector<std::string> args, const std::string& input = {}) {
        args.insert(args.begin(), SKILLHOST_BINARY);
        for (const char* extra : {"--config", config.c_str(), "--home", home.c_str()}) args.emplace_back(extra);
        return run_process(args, {}, input);
    }

    // Another declaration of the fixture server beside `fixture`: `extra` YAML lines, one skill.
    void declare(const std::string& name, const std::string& extra, const std::string& skill) {
        const std::string server =
            std::string(SKILLHOST_TEST_FIXTURES_BINARY_DIR) + "/foreign_mcp/skillhost_fixture_mcp_server";
        write_file(dir / "plugins" / (name + ".yaml"),
                   "kind: mcp_server\nname: " + name + "\ntransport: stdio\ncommand: " + server + "\n" + extra +
                       "skills:\n  - {id: " + skill + ", risk: low, min_trust: observe, requires_approval: false}\n");
    }

    std::string received() { return std::filesystem::exists(log) ? read_file(log) : std::string(); }
};

TEST_F(CliForeignServerTest, ItsToolsAreListedAsSkills) {
    auto list = skillhost({"skills", "list", "--json"});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("fixture__echo"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("fixture__write_note"), std::string::npos) << list.out;
}

TEST_F(CliForeignServerTest, ACallRunsThroughThePipelineAndIsAudited) {
    auto call = skillhost({"call", "fixture__echo", "--json", "--args", R"({"message":"hello from skillhost"})"});
    ASSERT_EQ(call.exit_code, 0) << call.out << call.err;
    EXPECT_NE(call.out.find("hello from skillhost"), std::string::npos) << call.out;
    auto audit = skillhost({"audit", "tail", "--skill", "fixture__echo", "--kind", "skill_call", "--json"});
    ASSERT_EQ(audit.exit_code, 0) << audit.err;
    EXPECT_NE(audit.out.find("fixture__echo"), std::string::npos) << audit.out;
}

TEST_F(CliForeignServerTest, AnUnlistedToolNeedsApprovalAndRunsOnlyOnceApproved) {
    // write_note has no override: the cautious defaults apply (approval required), whatever the
    // server claims (readOnlyHint: true).
    auto call = skillhost({"call", "fixture__write_note", "--json", "--args", R"({"path":"note.txt","text":"x"})"});
    ASSERT_EQ(call.exit_code, 1) << call.out << call.err;
    auto v = boost::json::parse(call.out).as_object();
    ASSERT_EQ(v.at("error").at("code").as_string(), "APPROVAL_REQUIRED") << call.out;
    EXPECT_EQ(received().find("write_note"), std::string::npos) << "nothing reaches the server before approval";
    std::string id(v.at("error").at("details").at("approval_id").as_string());
    auto approve = skillhost({"approvals", "approve", id});
    ASSERT_EQ(approve.exit_code, 0) << approve.out << approve.err;
    EXPECT_NE(received().find("write_note"), std::string::npos);
}

TEST_F(CliForeignServerTest, ADenyRuleOnAnArrayPathInputRefusesTheCallBeforeTheServerSeesIt) {
    auto denied =
        skillhost({"call", "fixture__read_paths", "--json", "--args", R"({"paths":["notes/a.txt","secret/key"]})"});
    ASSERT_EQ(denied.exit_code, 1) << denied.out << denied.err;
    EXPECT_NE(denied.out.find("DENIED_BY_RULE"), std::string::npos) << denied.out;
    EXPECT_EQ(received().find("read_paths"), std::string::npos) << received();

    auto allowed = skillhost({"call", "fixture__read_paths", "--json", "--args", R"({"paths":["notes/a.txt"]})"});
    EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
    EXPECT_NE(received().find("read_paths"), std::string::npos);
}

TEST_F(CliForeignServerTest, PluginCheckReadsADeclarationStartsTheServerAndCallsNothing) {
    auto check = skillhost({"plugin", "check", (dir / "plugins/fixture.yaml").string()});
    ASSERT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_NE(check.out.find("fixture__echo"), std::string::npos) << check.out;
    EXPECT_NE(check.out.find("the server says read-only, which is not believed"), std::string::npos) << check.out;
    EXPECT_EQ(received().find("tools/call"), std::string::npos) << "plugin check calls no foreign tool";

    // A path relative to where the command runs reads the same declaration.
    auto relative =
        run_process({"/bin/sh", "-c",
                     "cd '" + dir.path().string() + "' && exec '" + SKILLHOST_BINARY +
                         "' plugin check plugins/fixture.yaml --config '" + config + "' --home '" + home + "'"});
    EXPECT_EQ(relative.exit_code, 0) << relative.out << relative.err;
    EXPECT_NE(relative.out.find("fixture__echo"), std::string::npos) << relative.out;

    write_file(dir / "broken.yaml", "kind: mcp_server\nname: Bad__Name\ntransport: stdio\ncommand: npx\n");
    auto broken = skillhost({"plugin", "check", (dir / "broken.yaml").string()});
    EXPECT_NE(broken.exit_code, 0);
    EXPECT_NE((broken.out + broken.err).find("broken.yaml:2:7"), std::string::npos) << broken.out << broken.err;
    EXPECT_NE((broken.out + broken.err).find("npx"), std::string::npos) << broken.out << broken.err;
}

// Over skillhost's own MCP, a client that declared the elicitation capability is asked the server's
// question itself, during the call, and the server gets what the client answered.
TEST_F(CliForeignServerTest, AServersQuestionIsForwardedToAnMcpClientThatCanAnswer) {
    declare("asker", "args: [--elicit]\n", "ask_user");
    skillhost::testing::InteractiveProcess mcp({SKILLHOST_BINARY, "mcp", "--config", config, "--home", home});
    mcp.write_line(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
                   R"("capabilities":{"elicitation":{}},"clientInfo":{"name":"test","version":"1"}}})");
    mcp.write_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    mcp.write_line(
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"asker__ask_user","arguments":{}}})");
    std::string result;
    bool asked = false;
    for (int i = 0; i < 50 && result.empty(); ++i) {
        auto line = mcp.read_line(std::chrono::seconds(30));
        if (!line) break;
        const auto message = boost::json::parse(*line);
        const auto& object = message.as_object();
        if (object.contains("method") && object.at("method") == "elicitation/create") {
            asked = true;
            EXPECT_EQ(object.at("params").at("message"), "Who is asking?");
            mcp.write_line(R"({"jsonrpc":"2.0","id":)" + boost::json::serialize(object.at("id")) +
                           R"(,"result":{"action":"accept","content":{"name":"Grace"}}})");
        } else if (object.contains("id") && object.at("id") == 2) {
            result = *line;
        }
    }
    mcp.close_and_wait(std::chrono::seconds(10));
    EXPECT_TRUE(asked) << mcp.stderr_text();
    EXPECT_NE(result.find("hello Grace"), std::string::npos) << result << mcp.stderr_text();
}

// Path rules reach the files a result links to: a deny rule on the path input withholds a
// resource_link to a file it matches, and the other links pass.
TEST_F(CliForeignServerTest, ADenyRuleWithholdsTheFilesAResultLinksTo) {
    write_file(dir / "shared/readme.txt", "public");
    write_file(dir / "shared/secret-plans.txt", "private");
    auto listed = skillhost(
        {"call", "fixture__list_links", "--json", "--args", "{\"dir\":\"" + (dir / "shared").string() + "\"}"});
    ASSERT_EQ(listed.exit_code, 0) << listed.out << listed.err;
    EXPECT_NE(listed.out.find("file://" + (dir / "shared/readme.txt").string()), std::string::npos) << listed.out;
    EXPECT_EQ(listed.out.find("file://" + (dir / "shared/secret-plans.txt").string()), std::string::npos) << listed.out;
    EXPECT_NE(listed.out.find("[withheld: a file a policy rule keeps from this call"), std::string::npos) << listed.out;
}

// A declaration's `secrets:`: each user sets theirs from standard input; a call without it is
// refused saying how to set it; the server gets it and whatever it sends back is redacted.
TEST_F(CliForeignServerTest, ASecretIsSetFromStandardInputInjectedAndNeverShown) {
    declare("vault", "secrets:\n  - {name: FIXTURE_TOKEN, env: FIXTURE_TOKEN, format: \"token {value}\"}\n",
            "show_env");
    const std::string args = R"({"name":"FIXTURE_TOKEN"})";
    auto missing = skillhost({"call", "vault__show_env", "--json", "--args", args});
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_THAT(missing.out + missing.err, ::testing::HasSubstr("UPSTREAM_SECRET_MISSING"));
    EXPECT_THAT(missing.out + missing.err, ::testing::HasSubstr("skillhost secrets set FIXTURE_TOKEN --user owner"));

    auto before = skillhost({"secrets", "list"});
    EXPECT_THAT(before.out, ::testing::HasSubstr("vault: FIXTURE_TOKEN (env FIXTURE_TOKEN)  missing: skillhost secrets "
                                                 "set FIXTURE_TOKEN --user owner"))
        << before.out << before.err;
    const std::string value = "cli-Secret-Value-77";
    auto set = skillhost({"secrets", "set", "FIXTURE_TOKEN"}, value + "\n");
    ASSERT_EQ(set.exit_code, 0) << set.out << set.err;
    EXPECT_THAT(set.out + set.err, ::testing::Not(::testing::HasSubstr(value)));
    auto listed = skillhost({"secrets", "list", "--json"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    const auto list = boost::json::parse(listed.out);
    EXPECT_EQ(list.at("user_id"), "owner");
    ASSERT_EQ(list.at("secrets").as_array().size(), 1u);
    EXPECT_EQ(list.at("secrets").at(0).at("name"), "FIXTURE_TOKEN");
    ASSERT_EQ(list.at("needed").as_array().size(), 1u);
    EXPECT_EQ(list.at("needed").at(0).at("server"), "vault");
    EXPECT_EQ(list.at("needed").at(0).at("set"), true);
    EXPECT_THAT(listed.out, ::testing::Not(::testing::HasSubstr(value)));

    auto call = skillhost({"call", "vault__show_env", "--json", "--args", args});
    ASSERT_EQ(call.exit_code, 0) << call.out << call.err;
    const auto result = boost::json::parse(call.out).at("result");
    // The server got "token <value>" (the declaration's format) and its answer came back redacted.
    EXPECT_EQ(result.at("length").as_int64(), static_cast<std::int64_t>(("token " + value).size()));
    EXPECT_EQ(result.at("value"), "token [secret FIXTURE_TOKEN]");
    EXPECT_THAT(call.out + call.err, ::testing::Not(::testing::HasSubstr(value)));
    for (const auto& entry : std::filesystem::recursive_directory_iterator(home)) {
        if (entry.is_regular_file()) {
            EXPECT_THAT(read_file(entry.path()), ::testing::Not(::testing::HasSubstr(value))) << entry.path();
        }
    }

    auto too_short = skillhost({"secrets", "set", "FIXTURE_TOKEN", "--json"}, "abc\n");
    EXPECT_NE(too_short.exit_code, 0);
    EXPECT_THAT(too_short.out + too_short.err, ::testing::HasSubstr("SECRET_INVALID"));
    auto unknown_user = skillhost({"secrets", "list", "--user", "mallory"});
    EXPECT_NE(unknown_user.exit_code, 0);
    EXPECT_THAT(unknown_user.out + unknown_user.err, ::testing::HasSubstr("USER_NOT_FOUND"));
    ASSERT_EQ(skillhost({"secrets", "delete", "FIXTURE_TOKEN"}).exit_code, 0);
    auto audited = skillhost({"audit", "tail", "--kind", "secret_deleted", "--json"});
    EXPECT_THAT(audited.out, ::testing::HasSubstr("\"by\":\"cli\"")) << audited.err;
    auto gone = skillhost({"secrets", "delete", "FIXTURE_TOKEN"});
    EXPECT_NE(gone.exit_code, 0);
    EXPECT_THAT(gone.out + gone.err, ::testing::HasSubstr("SECRET_NOT_FOUND"));
}

}  // namespace
