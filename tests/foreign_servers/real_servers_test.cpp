// Issue 37's first target: real MCP servers from npm, at pinned versions, work as skills through
// the CLI and MCP, under deny rules, approvals and the audit log. The servers are what users run:
// @modelcontextprotocol/server-filesystem, server-memory and server-everything, started with node.
#include "mcp/mcp_client_process.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <chrono>
#include <thread>

namespace {

using skillhost::testing::ProcessResult;
using skillhost::testing::read_file;
using skillhost::testing::run_process;
using skillhost::testing::TempDir;
using skillhost::testing::write_file;

class RealMcpServersTest : public ::testing::Test {
protected:
    TempDir dir{"skillhost-real-mcp"};
    std::string config = (dir / "etc/skillhost.yaml").string();
    std::string home = (dir / "home").string();
    // The user's workspace: skillhost answers the servers' roots/list with it, so the filesystem
    // server serves this folder (and only this one) to the user's calls.
    std::filesystem::path docs = dir / "home" / "workspace" / "owner";

    void SetUp() override {
        auto install = run_process({SKILLHOST_REAL_SERVERS_INSTALL, SKILLHOST_REAL_SERVERS_CACHE}, {}, {}, 300000);
        if (install.exit_code == 77) GTEST_SKIP() << install.err;
        ASSERT_EQ(install.exit_code, 0) << install.err;
        std::string packages = install.out.substr(0, install.out.find('\n'));
        // What each server's sandbox may read: the installed packages and their dependencies.
        const std::string modules = std::filesystem::path(packages).parent_path().string();
        write_file(docs / "readme.txt", "hello from the docs folder\n");
        write_file(docs / "secret.txt", "the launch codes\n");
        write_file(dir / "elsewhere/other.txt", "not the user's\n");
        write_file(config, "plugin_dirs: [" + (dir / "plugins").string() + "]\n");
        write_file(dir / "etc/users.yaml", "users:\n  - {id: owner, role: owner, trust: supervised_auto}\n");
        write_file(dir / "etc/policy.yaml",
                   "global:\n"
                   "  deny:\n"
                   "    - \"files__*(path=**/secret*)\"\n"
                   "    - \"files__*(paths=**/secret*)\"\n");
        write_file(
            dir / "plugins/files.yaml",
            "kind: mcp_server\nname: files\ntransport: stdio\ncommand: node\n"
            "args: [" +
                packages +
                "/server-filesystem/dist/index.js, \"${workspace}\"]\n"
                "files: [" +
                modules +
                "]\n"
                "permissions: {workspace: read_write}\n"
                "skills:\n"
                "  - {id: read_text_file, risk: low, requires_approval: false, path_inputs: [path]}\n"
                "  - {id: read_multiple_files, risk: low, requires_approval: false, path_inputs: [\"paths[]\"]}\n"
                "  - {id: write_file, path_inputs: [path]}\n"
                "  - {id: list_allowed_directories, risk: low, requires_approval: false}\n");
        // The same server with another folder on its command line, for the roots test.
        write_file(dir / "plugins/elsewhere.yaml",
                   "kind: mcp_server\nname: elsewhere\ntransport: stdio\ncommand: node\n"
                   "args: [" +
                       packages + "/server-filesystem/dist/index.js, " + (dir / "elsewhere").string() +
                       "]\n"
                       "files: [" +
                       modules + ", " + (dir / "elsewhere").string() +
                       "]\n"
                       "permissions: {workspace: read}\n"
                       "include: [list_allowed_directories]\n"
                       "skills:\n"
                       "  - {id: list_allowed_directories, risk: low, requires_approval: false}\n");
        write_file(dir / "plugins/graph.yaml",
                   "kind: mcp_server\nname: graph\ntransport: stdio\ncommand: node\n"
                   "args: [" +
                       packages +
                       "/server-memory/dist/index.js]\n"
                       "env: {MEMORY_FILE_PATH: \"${data_dir}/graph.jsonl\"}\n"
                       "files: [" +
                       modules +
                       "]\n"
                       "skills:\n"
                       "  - {id: create_entities, risk: low, requires_approval: false}\n"
                       "  - {id: read_graph, risk: low, requires_approval: false, annotations: {read_only: true}}\n");
        write_file(dir / "plugins/everything.yaml",
                   "kind: mcp_server\nname: everything\ntransport: stdio\ncommand: node\n"
                   "args: [" +
                       packages +
                       "/server-everything/dist/index.js, stdio]\n"
                       "files: [" +
                       modules +
                       "]\n"
                       "skills:\n"
                       "  - {id: get-sum, risk: low, requires_approval: false}\n"
                       "  - {id: echo, risk: low, requires_approval: false}\n");
    }

    ProcessResult skillhost(std::vector<std::string> args, const std::string& input = {}) {
        args.insert(args.begin(), SKILLHOST_BINARY);
        for (const char* extra : {"--config", config.c_str(), "--home", home.c_str()}) args.emplace_back(extra);
        return run_process(args, {}, input, 120000);
    }

    boost::json::object call(const std::string& skill, const std::string& args) {
        auto result = skillhost({"call", skill, "--json", "--args", args});
        std::error_code ec;
        auto value = boost::json::parse(result.out, ec);
        if (ec || !value.is_object()) {
            ADD_FAILURE() << skill << ": " << result.out << result.err;
            return {};
        }
        return value.as_object();
    }
};

TEST_F(RealMcpServersTest, EachServersToolsAreListedAsSkills) {
    auto list = skillhost({"skills", "list", "--json"});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    for (const char* id : {"files__read_text_file", "files__write_file", "graph__create_entities", "graph__read_graph",
                           "everything__get-sum", "everything__echo"})
        EXPECT_NE(list.out.find(std::string("\"") + id + "\""), std::string::npos) << id << " in " << list.out;
}

TEST_F(RealMcpServersTest, FilesystemReadsUnderDenyRulesOnStringAndArrayPaths) {
    auto read = call("files__read_text_file", R"({"path":")" + (docs / "readme.txt").string() + R"("})");
    ASSERT_EQ(read["ok"], true) << boost::json::serialize(read);
    EXPECT_NE(boost::json::serialize(read["result"]).find("hello from the docs folder"), std::string::npos);

    auto secret = call("files__read_text_file", R"({"path":")" + (docs / "secret.txt").string() + R"("})");
    EXPECT_EQ(secret["error"].at("code"), "DENIED_BY_RULE") << boost::json::serialize(secret);

    auto several = call("files__read_multiple_files", R"({"paths":[")" + (docs / "readme.txt").string() + R"(",")" +
                                                          (docs / "secret.txt").string() + R"("]})");
    EXPECT_EQ(several["error"].at("code"), "DENIED_BY_RULE") << boost::json::serialize(several);
}

TEST_F(RealMcpServersTest, TheFilesystemServerServesTheCallingUsersWorkspaceAsItsRoot) {
    // Its command line names another folder; the roots skillhost answers replace it. The server
    // applies roots on its own time and never says when, so one session asks until it has.
    std::vector<std::string> argv{SKILLHOST_BINARY, "mcp", "--config", config, "--home", home};
    skillhost::testing::InteractiveProcess mcp(argv);
    mcp.write_line(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}})");
    mcp.write_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    std::string last;
    bool served = false;
    for (int id = 1; id <= 50 && !served; ++id) {
        mcp.write_line(
            R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
            R"(,"method":"tools/call","params":{"name":"elsewhere__list_allowed_directories","arguments":{}}})");
        while (auto line = mcp.read_line(std::chrono::seconds(60))) {
            if (line->find(R"("id":)" + std::to_string(id) + ",") == std::string::npos &&
                line->find(R"("id":)" + std::to_string(id) + "}") == std::string::npos)
                continue;
            last = *line;
            break;
        }
        served = last.find(docs.string()) != std::string::npos;
        if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    mcp.close_and_wait(std::chrono::seconds(10));
    EXPECT_TRUE(served) << last << mcp.stderr_text();
    EXPECT_EQ(last.find((dir / "elsewhere").string()), std::string::npos) << last;
}

TEST_F(RealMcpServersTest, AWriteWaitsForApprovalWhateverTheServerClaims) {
    const auto target = docs / "note.txt";
    auto write = call("files__write_file", R"({"path":")" + target.string() + R"(","content":"approved text"})");
    ASSERT_EQ(write["error"].at("code"), "APPROVAL_REQUIRED") << boost::json::serialize(write);
    EXPECT_FALSE(std::filesystem::exists(target));
    std::string id(write["error"].at("details").at("approval_id").as_string());
    auto approve = skillhost({"approvals", "approve", id});
    ASSERT_EQ(approve.exit_code, 0) << approve.out << approve.err;
    EXPECT_EQ(read_file(target), "approved text");
    auto audit = skillhost({"audit", "tail", "--skill", "files__write_file", "--kind", "skill_call", "--json"});
    EXPECT_NE(audit.out.find("files__write_file"), std::string::npos) << audit.out;
}

TEST_F(RealMcpServersTest, MemoryKeepsWhatItWasToldAcrossCalls) {
    auto created =
        call("graph__create_entities",
             R"({"entities":[{"name":"skillhost","entityType":"project","observations":["hosts skills"]}]})");
    ASSERT_EQ(created["ok"], true) << boost::json::serialize(created);
    auto graph = call("graph__read_graph", "{}");
    ASSERT_EQ(graph["ok"], true) << boost::json::serialize(graph);
    EXPECT_NE(boost::json::serialize(graph["result"]).find("hosts skills"), std::string::npos)
        << boost::json::serialize(graph);
    // Kept where its sandbox lets it write: the user's data directory for the server.
    EXPECT_NE(read_file(dir / "home/users/owner/plugins/graph/graph.jsonl").find("hosts skills"), std::string::npos);
}

TEST_F(RealMcpServersTest, EachServerRunsInTheSandboxOfThirdPartyRunners) {
    for (const char* skill : {"files__read_text_file", "graph__read_graph", "everything__echo"}) {
        auto shown = skillhost({"skills", "show", skill, "--json"});
        ASSERT_EQ(shown.exit_code, 0) << shown.err;
        EXPECT_NE(shown.out.find("\"seccomp\""), std::string::npos) << skill << shown.out;
        EXPECT_NE(shown.out.find("\"landlock_abi\""), std::string::npos) << skill;
        EXPECT_NE(shown.out.find("system directories and the declared files only"), std::string::npos) << skill;
    }
}

TEST_F(RealMcpServersTest, EverythingAnswersThroughTheCliAndThroughSkillhostsOwnMcpServer) {
    auto sum = call("everything__get-sum", R"({"a":2,"b":40})");
    ASSERT_EQ(sum["ok"], true) << boost::json::serialize(sum);
    EXPECT_NE(boost::json::serialize(sum["result"]).find("42"), std::string::npos) << boost::json::serialize(sum);

    // The same tool as an MCP client of skillhost sees it, over `skillhost mcp` (stdin kept open
    // until each answer is read, as a client does).
    std::vector<std::string> argv{SKILLHOST_BINARY, "mcp", "--config", config, "--home", home};
    skillhost::testing::InteractiveProcess mcp(argv);
    const auto answer_to = [&](int id) -> std::string {
        for (int i = 0; i < 200; ++i) {
            auto line = mcp.read_line(std::chrono::seconds(60));
            if (!line) return "";
            std::error_code ec;
            auto message = boost::json::parse(*line, ec);
            if (!ec && message.is_object() && message.as_object().contains("id") && message.at("id") == id)
                return *line;
        }
        return "";
    };
    mcp.write_line(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}})");
    ASSERT_NE(answer_to(1), "") << mcp.stderr_text();
    mcp.write_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    mcp.write_line(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
    const bool listed = answer_to(2).find("\"everything__echo\"") != std::string::npos;
    mcp.write_line(
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"through two MCP hops"}}})");
    const std::string echo = answer_to(3);
    const bool echoed =
        echo.find("through two MCP hops") != std::string::npos && echo.find("isError\":true") == std::string::npos;
    mcp.close_and_wait(std::chrono::seconds(10));
    EXPECT_TRUE(listed) << mcp.stderr_text();
    EXPECT_TRUE(echoed) << echo << mcp.stderr_text();
}

}  // namespace
