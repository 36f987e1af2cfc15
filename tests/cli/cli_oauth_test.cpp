// A foreign MCP server that authorizes with OAuth, through the real binary: the declaration says
// `oauth:`, each user logs in once with `skillhost oauth login` (the test plays the browser: it
// opens the printed URL, signs in as the user, and follows the redirect back to the CLI's loopback
// listener), and their calls then carry their own token, refreshed when it expires, never shown.
#include "support/child_process.hpp"
#include "support/oauth_mcp_server.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include "net/http_client.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace {

namespace fs = std::filesystem;
using skillhost::testing::ChildProcess;
using skillhost::testing::ProcessResult;
using skillhost::testing::run_process;
using skillhost::testing::TempDir;
using skillhost::testing::write_file;

class CliOAuthTest : public ::testing::Test {
protected:
    TempDir dir{"skillhost-cli-oauth"};
    std::string config = (dir / "etc/skillhost.yaml").string();
    std::string home = (dir / "home").string();
    skillhost::testing::OAuthMcpServer server;

    void SetUp() override {
        write_file(config, "plugin_dirs: [" + (dir / "plugins").string() + "]\n");
        write_file(dir / "etc/users.yaml",
                   "users:\n"
                   "  - {id: owner, role: owner, trust: supervised_auto}\n"
                   "  - {id: alice, role: standard, trust: supervised_auto}\n");
        write_file(dir / "plugins/demo.yaml",
                   "kind: mcp_server\n"
                   "name: demo\n"
                   "transport: streamable_http\n"
                   "url: " +
                       server.url() +
                       "\n"
                       "oauth: {scope: tools}\n"
                       "defaults: {risk: low, min_trust: observe, requires_approval: false}\n");
    }

    std::vector<std::string> command(std::vector<std::string> args) const {
        args.insert(args.begin(), SKILLHOST_BINARY);
        for (const char* extra : {"--config", config.c_str(), "--home", home.c_str()}) args.emplace_back(extra);
        return args;
    }
    ProcessResult skillhost(std::vector<std::string> args) const { return run_process(command(std::move(args))); }

    // What a person does at the authorization page: signs in as `user`; the browser is redirected.
    static std::string sign_in(const std::string& authorization_url, const std::string& user) {
        skillhost::http::HttpClientOptions options;
        options.max_retries = 0;
        auto page = skillhost::http::send_http_request({"GET", authorization_url + "&user=" + user, {}, ""}, options);
        EXPECT_TRUE(page) << (page ? "" : page.error().message);
        if (!page) return {};
        EXPECT_EQ(page->status, 302);
        return page->header("location");
    }

    // `skillhost oauth login demo --user USER`, with the test as the browser; the login's result.
    ProcessResult login(const std::string& user, bool follow_redirect = true) {
        ChildProcess cli(command({"oauth", "login", "demo", "--user", user, "--timeout", "20"}));
        std::string url;
        std::string err;
        for (int i = 0; i < 400 && url.empty(); ++i) {
            err += cli.stderr_text();
            const std::size_t at = err.find("http://127.0.0.1:");
            const std::size_t start = err.find("  http", 0);
            if (at != std::string::npos && start != std::string::npos) {
                const std::size_t end = err.find('\n', start + 2);
                if (end != std::string::npos) url = err.substr(start + 2, end - start - 2);
            }
            if (url.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        EXPECT_FALSE(url.empty()) << err;
        const std::string back = url.empty() ? std::string() : sign_in(url, user);
        if (follow_redirect && !back.empty()) {
            skillhost::http::HttpClientOptions options;
            options.max_retries = 0;
            auto landed = skillhost::http::send_http_request({"GET", back, {}, ""}, options);
            EXPECT_TRUE(landed && landed->status == 200) << back;
            EXPECT_NE(landed->body.find("close this window"), std::string::npos);
        }
        ProcessResult result;
        result.exit_code = cli.wait(std::chrono::seconds(30));
        std::string line;
        while (auto next = cli.read_line(std::chrono::milliseconds(200))) result.out += *next + "\n";
        result.err = err + cli.stderr_text();
        return result;
    }

    static std::string error_code(const ProcessResult& r) {
        auto v = boost::json::parse(r.out).as_object();
        return std::string(v.at("error").at("code").as_string());
    }

    // Every byte under the home, to look for tokens written in the clear.
    std::string everything_under_home() const {
        std::string all;
        for (const auto& entry : fs::recursive_directory_iterator(home)) {
            if (!entry.is_regular_file()) continue;
            std::ifstream in(entry.path(), std::ios::binary);
            std::ostringstream text;
            text << in.rdbuf();
            all += text.str();
        }
        return all;
    }
};

TEST_F(CliOAuthTest, EachUserLogsInOnceAndTheirCallsCarryTheirOwnTokenRefreshedAndNeverShown) {
    // Before anyone logs in, the server cannot even be listed; the error says to log in.
    auto before = skillhost({"oauth", "status", "--json"});
    ASSERT_EQ(before.exit_code, 0) << before.err;
    EXPECT_EQ(boost::json::parse(before.out).at("servers").at(0).at("authorized").as_bool(), false) << before.out;
    auto unlisted = skillhost({"plugin", "check", (dir / "plugins/demo.yaml").string()});
    EXPECT_NE(unlisted.exit_code, 0);
    EXPECT_NE((unlisted.out + unlisted.err).find("OAUTH_AUTHORIZATION_REQUIRED"), std::string::npos)
        << unlisted.out << unlisted.err;
    EXPECT_NE((unlisted.out + unlisted.err).find("skillhost oauth login demo"), std::string::npos)
        << unlisted.out << unlisted.err;

    // The first owner logs in: the server is listed with their grant.
    auto owner = login("owner");
    ASSERT_EQ(owner.exit_code, 0) << owner.out << owner.err;
    EXPECT_NE(owner.out.find("Authorized owner with MCP server 'demo' (scope: tools)"), std::string::npos) << owner.out;
    EXPECT_EQ(server.last_scope(), "tools");
    EXPECT_EQ(server.registrations(), 1);

    // Alice has not logged in: her call is refused before a token of anyone else's is used.
    auto refused = skillhost({"call", "demo__whoami", "--user", "alice", "--json", "--args", "{}"});
    EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
    EXPECT_EQ(error_code(refused), "OAUTH_AUTHORIZATION_REQUIRED") << refused.out;
    EXPECT_NE(refused.out.find("skillhost oauth login demo --user alice"), std::string::npos) << refused.out;

    auto alice = login("alice");
    ASSERT_EQ(alice.exit_code, 0) << alice.out << alice.err;
    auto whoami = skillhost({"call", "demo__whoami", "--user", "alice", "--json", "--args", "{}"});
    ASSERT_EQ(whoami.exit_code, 0) << whoami.out << whoami.err;
    EXPECT_NE(whoami.out.find("signed in as alice"), std::string::npos) << whoami.out;
    auto as_owner = skillhost({"call", "demo__whoami", "--json", "--args", "{}"});
    EXPECT_NE(as_owner.out.find("signed in as owner"), std::string::npos) << as_owner.out;

    // A server that echoes the token does not hand it to the caller (nor the model).
    auto echoed = skillhost({"call", "demo__echo_token", "--user", "alice", "--json", "--args", "{}"});
    ASSERT_EQ(echoed.exit_code, 0) << echoed.out << echoed.err;
    EXPECT_EQ(echoed.out.find("at-alice-"), std::string::npos) << echoed.out;
    EXPECT_NE(echoed.out.find("[secret oauth access token]"), std::string::npos) << echoed.out;

    // The token expires: the refresh token gets a new one, with no one asked.
    const int authorizations = server.authorizations();
    server.expire_access_tokens();
    auto refreshed = skillhost({"call", "demo__whoami", "--user", "alice", "--json", "--args", "{}"});
    ASSERT_EQ(refreshed.exit_code, 0) << refreshed.out << refreshed.err;
    EXPECT_NE(refreshed.out.find("signed in as alice"), std::string::npos) << refreshed.out;
    EXPECT_GE(server.refresh_grants(), 1);
    EXPECT_EQ(server.authorizations(), authorizations);
    // The rotated refresh token was kept: another expiry refreshes again, and the token refreshed
    // within the call is redacted from its result.
    server.expire_access_tokens();
    auto again = skillhost({"call", "demo__echo_token", "--user", "alice", "--json", "--args", "{}"});
    EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
    EXPECT_EQ(again.out.find("at-alice-"), std::string::npos) << again.out;
    EXPECT_NE(again.out.find("[secret oauth access token]"), std::string::npos) << again.out;
    EXPECT_GE(server.refresh_grants(), 2);

    auto status = skillhost({"oauth", "status", "demo", "--user", "alice", "--json"});
    ASSERT_EQ(status.exit_code, 0) << status.err;
    const auto alice_status = boost::json::parse(status.out).at("servers").at(0);
    EXPECT_TRUE(alice_status.at("authorized").as_bool()) << status.out;
    EXPECT_TRUE(alice_status.at("refreshable").as_bool()) << status.out;
    EXPECT_EQ(alice_status.at("scope").as_string(), "tools");
    EXPECT_EQ(status.out.find("at-alice"), std::string::npos);

    // No token is written in the clear anywhere under the home; `secrets list` does not show grants.
    const std::string stored = everything_under_home();
    EXPECT_EQ(stored.find("at-alice-"), std::string::npos);
    EXPECT_EQ(stored.find("rt-alice-"), std::string::npos);
    auto secrets = skillhost({"secrets", "list", "--user", "alice", "--json"});
    EXPECT_EQ(boost::json::parse(secrets.out).at("secrets").as_array().size(), 0u) << secrets.out;

    auto logout = skillhost({"oauth", "logout", "demo", "--user", "alice"});
    ASSERT_EQ(logout.exit_code, 0) << logout.err;
    auto after = skillhost({"call", "demo__whoami", "--user", "alice", "--json", "--args", "{}"});
    EXPECT_EQ(error_code(after), "OAUTH_AUTHORIZATION_REQUIRED") << after.out;
    auto twice = skillhost({"oauth", "logout", "demo", "--user", "alice", "--json"});
    EXPECT_NE(twice.exit_code, 0);
    EXPECT_EQ(error_code(twice), "OAUTH_AUTHORIZATION_REQUIRED") << twice.out;
}

TEST_F(CliOAuthTest, ALoginWhoseRedirectIsForgedOrRefusedKeepsNothing) {
    server.forge_state(true);
    auto forged = login("owner");
    EXPECT_NE(forged.exit_code, 0);
    EXPECT_NE(forged.err.find("another state"), std::string::npos) << forged.out << forged.err;
    EXPECT_EQ(server.code_grants(), 0) << "a forged redirect's code is never exchanged";
    server.forge_state(false);

    server.refuse_authorization(true);
    auto refused = login("owner");
    EXPECT_NE(refused.exit_code, 0);
    EXPECT_NE(refused.err.find("access_denied"), std::string::npos) << refused.out << refused.err;
    server.refuse_authorization(false);

    auto status = skillhost({"oauth", "status", "demo", "--json"});
    EXPECT_FALSE(boost::json::parse(status.out).at("servers").at(0).at("authorized").as_bool()) << status.out;
}

TEST_F(CliOAuthTest, ALoginNobodyCompletesEndsAtItsTimeoutAndNamesWhatToDo) {
    ChildProcess cli(command({"oauth", "login", "demo", "--timeout", "5"}));
    const int code = cli.wait(std::chrono::seconds(30));
    EXPECT_NE(code, 0);
    const std::string err = cli.stderr_text();
    EXPECT_NE(err.find("not completed in time"), std::string::npos) << err;
    EXPECT_NE(err.find("OAUTH_AUTHORIZATION_REQUIRED"), std::string::npos) << err;
}

TEST_F(CliOAuthTest, UnknownServersAndDeclarationsThatCannotWorkAreRefusedClearly) {
    auto unknown = skillhost({"oauth", "login", "nope", "--json"});
    EXPECT_NE(unknown.exit_code, 0);
    EXPECT_EQ(error_code(unknown), "OAUTH_SERVER_NOT_DECLARED") << unknown.out;
    EXPECT_NE(unknown.out.find("demo"), std::string::npos) << "names the servers that do declare oauth";

    write_file(dir / "bad.yaml",
               "kind: mcp_server\nname: bad\ntransport: stdio\ncommand: /bin/true\noauth: {scope: x}\n");
    auto stdio = skillhost({"plugin", "check", (dir / "bad.yaml").string()});
    EXPECT_NE(stdio.exit_code, 0);
    EXPECT_NE((stdio.out + stdio.err).find("oauth is for transport streamable_http"), std::string::npos)
        << stdio.out << stdio.err;

    write_file(dir / "bad2.yaml",
               "kind: mcp_server\nname: bad2\ntransport: streamable_http\nurl: http://127.0.0.1:1/mcp\n"
               "headers: {Authorization: Bearer fixed}\n"
               "oauth: {client_secret: CLIENT_SECRET, grant: client_credentials, redirect_port: 70000,"
               " client_metadata_url: http://example.org/c.json}\n");
    auto bad = skillhost({"plugin", "check", (dir / "bad2.yaml").string()});
    EXPECT_NE(bad.exit_code, 0);
    const std::string said = bad.out + bad.err;
    for (const char* problem : {"client_secret without client_id", "needs client_id and client_secret",
                                "must be an https:// URL", "Authorization header is already set", "65535"})
        EXPECT_NE(said.find(problem), std::string::npos) << problem << "\n" << said;
}

}  // namespace
