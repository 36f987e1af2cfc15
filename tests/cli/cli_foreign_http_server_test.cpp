// A foreign MCP server on the Streamable HTTP transport through the real binary: the declaration
// names the URL of a scripted server on loopback (support/mcp_http_server, in this test's process),
// and `skillhost call remote__TOOL` reaches it through the one pipeline, its failures reported with
// their codes.
#include "support/mcp_http_server.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace {

using skillhost::testing::ProcessResult;
using skillhost::testing::run_process;
using skillhost::testing::TempDir;
using skillhost::testing::write_file;

class CliForeignHttpServerTest : public ::testing::Test {
protected:
    TempDir dir{"skillhost-cli-foreign-http"};
    std::string config = (dir / "etc/skillhost.yaml").string();
    std::string home = (dir / "home").string();
    skillhost::testing::McpHttpServer server;

    void SetUp() override {
        write_file(config, "plugin_dirs: [" + (dir / "plugins").string() + "]\n");
        write_file(dir / "etc/users.yaml", "users:\n  - {id: owner, role: owner, trust: supervised_auto}\n");
        write_file(dir / "plugins/remote.yaml",
                   "kind: mcp_server\n"
                   "name: remote\n"
                   "transport: streamable_http\n"
                   "url: " +
                       server.url() +
                       "\n"
                       "limits: {max_message_bytes: 1048576}\n"
                       "defaults: {risk: low, min_trust: observe, requires_approval: false}\n"
                       "skills:\n"
                       "  - id: hang\n"
                       "    timeout_ms: 300\n");
    }

    ProcessResult skillhost(std::vector<std::string> args) {
        args.insert(args.begin(), SKILLHOST_BINARY);
        for (const char* extra : {"--config", config.c_str(), "--home", home.c_str()}) args.emplace_back(extra);
        return run_process(args);
    }

    std::string error_code(const ProcessResult& r) {
        auto v = boost::json::parse(r.out).as_object();
        return std::string(v.at("error").at("code").as_string());
    }
};

TEST_F(CliForeignHttpServerTest, ACallOverStreamableHttpRunsThroughThePipeline) {
    auto list = skillhost({"skills", "list", "--json"});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("remote__stream_echo"), std::string::npos) << list.out;

    auto call = skillhost({"call", "remote__stream_echo", "--json", "--args", R"({"message":"over http"})"});
    ASSERT_EQ(call.exit_code, 0) << call.out << call.err;
    EXPECT_NE(call.out.find("over http"), std::string::npos) << call.out;
    const auto deleted = server.deleted_sessions();
    EXPECT_FALSE(deleted.empty()) << "the CLI ends its sessions when it exits";
}

TEST_F(CliForeignHttpServerTest, ItsFailuresAreTheCallsErrorsWithTheirCodes) {
    auto hang = skillhost({"call", "remote__hang", "--json", "--args", "{}"});
    EXPECT_EQ(hang.exit_code, 1) << hang.out << hang.err;
    // The executor's deadline and the upstream call's are the same instant: either names it.
    EXPECT_THAT(error_code(hang), ::testing::AnyOf("TIMEOUT", "UPSTREAM_TIMEOUT")) << hang.out;
    EXPECT_TRUE(server.saw_cancel(std::chrono::seconds(2)));

    auto huge = skillhost({"call", "remote__huge", "--json", "--args", "{}"});
    EXPECT_EQ(huge.exit_code, 1) << huge.out << huge.err;
    EXPECT_EQ(error_code(huge), "UPSTREAM_MESSAGE_TOO_LARGE") << huge.out;
    EXPECT_NE(huge.out.find("1048576"), std::string::npos) << huge.out;

    const int before = server.tool_calls();
    auto broken = skillhost({"call", "remote__broken", "--json", "--args", "{}"});
    EXPECT_EQ(broken.exit_code, 1) << broken.out << broken.err;
    EXPECT_EQ(error_code(broken), "PLUGIN_CRASHED") << broken.out;
    EXPECT_EQ(server.tool_calls(), before + 1) << "a call whose stream broke is not resent";
}

}  // namespace
