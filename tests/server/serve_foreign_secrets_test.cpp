// Users' secrets for a foreign MCP server through the real daemon (issue 37): each user sets their
// own over the HTTP API, the server (sandboxed) gets it in the environment variable its declaration
// names, and the value is redacted from everything the server sends back and from every file the
// host writes: results, errors, its log lines, the audit log and the database.
#include "daemon_process.hpp"
#include "http_test_client.hpp"

#include "fixtures/fixture_support.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <thread>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace json = boost::json;
namespace fs = std::filesystem;

constexpr const char* kAliceValue = "alice-Secret-0001";
constexpr const char* kOwnerValue = "owner-secret-value-22";
constexpr const char* kAliceNewValue = "alice-rotated-secret-0002";

class ServeForeignSecrets : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        daemon_ = new DaemonProcess(DaemonSetup{});
        const std::string server = (test::fixture_dir("foreign_mcp") / "skillhost_fixture_mcp_server").string();
        write_file(daemon_->plugins_dir() / "vault.yaml",
                   "kind: mcp_server\nname: vault\ntransport: stdio\ncommand: " + server +
                       "\nsecrets:\n  - {name: FIXTURE_TOKEN, env: FIXTURE_TOKEN}\n"
                       "skills:\n  - {id: show_env, risk: low, min_trust: observe, requires_approval: false}\n");
        daemon_->start();
        int status = 0;
        for (int i = 0; i < 300 && status != 200; ++i) {
            status = daemon_->get("/v1/skills/vault__show_env").status;
            if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        ASSERT_EQ(status, 200) << "vault__show_env never joined the catalog: " << daemon_->log();
    }
    static void TearDownTestSuite() {
        delete daemon_;
        daemon_ = nullptr;
    }
    static HttpResult put(const std::string& target, const std::string& body, std::string_view user) {
        return http_request(daemon_->port(), RequestSpec{"PUT", target, body, DaemonProcess::token(user), {}});
    }
    static HttpResult remove(const std::string& target, std::string_view user) {
        return http_request(daemon_->port(), RequestSpec{"DELETE", target, "", DaemonProcess::token(user), {}});
    }
    static HttpResult set(std::string_view user, const std::string& value) {
        return put("/v1/secrets/FIXTURE_TOKEN", json::serialize(json::object{{"value", value}}), user);
    }
    static HttpResult show(std::string_view user, bool fail = false) {
        return daemon_->post(
            "/v1/skills/vault__show_env/call",
            std::string("{\"args\":{\"name\":\"FIXTURE_TOKEN\"") + (fail ? ",\"fail\":true" : "") + "}}", user);
    }
    // Every file under the home (database, audit log, users' data) holding `text`.
    static std::vector<std::string> files_holding(const std::string& text) {
        std::vector<std::string> found;
        for (const auto& entry : fs::recursive_directory_iterator(daemon_->home())) {
            if (!entry.is_regular_file()) continue;
            std::ifstream in(entry.path(), std::ios::binary);
            std::stringstream bytes;
            bytes << in.rdbuf();
            if (bytes.str().find(text) != std::string::npos) found.push_back(entry.path().string());
        }
        return found;
    }
    static inline DaemonProcess* daemon_ = nullptr;
};

TEST_F(ServeForeignSecrets, ACallWithoutTheUsersSecretIsRefusedSayingHowToSetIt) {
    auto reply = show("alice");
    EXPECT_THAT(reply.body, HasSubstr("UPSTREAM_SECRET_MISSING"));
    EXPECT_THAT(reply.body, HasSubstr("skillhost secrets set FIXTURE_TOKEN --user alice"));
}

TEST_F(ServeForeignSecrets, EachUserGetsTheirOwnValueAndNobodySeesIt) {
    ASSERT_EQ(set("alice", kAliceValue).status, 200);
    ASSERT_EQ(set("owner", kOwnerValue).status, 200);
    auto alice = show("alice");
    auto owner = show("owner");
    ASSERT_EQ(alice.status, 200) << alice.body;
    ASSERT_EQ(owner.status, 200) << owner.body;
    // The server got each user's value (its length says so) and sent it back, redacted.
    EXPECT_EQ(alice.json().at("result").at("length").as_int64(), std::string(kAliceValue).size());
    EXPECT_EQ(owner.json().at("result").at("length").as_int64(), std::string(kOwnerValue).size());
    EXPECT_EQ(alice.json().at("result").at("value"), "[secret FIXTURE_TOKEN]");
    EXPECT_THAT(alice.body, Not(HasSubstr(kAliceValue)));
    EXPECT_THAT(owner.body, Not(HasSubstr(kOwnerValue)));
    // Not as a key of its result either.
    EXPECT_TRUE(alice.json().at("result").as_object().contains("[secret FIXTURE_TOKEN]")) << alice.body;

    auto listed = daemon_->get("/v1/secrets", "alice");
    ASSERT_EQ(listed.status, 200) << listed.body;
    EXPECT_EQ(listed.json().at("secrets").as_array().size(), 1u);
    EXPECT_EQ(listed.json().at("secrets").at(0).at("name"), "FIXTURE_TOKEN");
    EXPECT_THAT(listed.body, Not(HasSubstr(kAliceValue)));

    // An error and the server's log line carry no value either.
    auto failed = show("alice", true);
    EXPECT_THAT(failed.body, HasSubstr("UPSTREAM_TOOL_ERROR"));
    EXPECT_THAT(failed.body, HasSubstr("[secret FIXTURE_TOKEN]"));
    EXPECT_THAT(failed.body, Not(HasSubstr(kAliceValue)));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the server's stderr reaches the log
    EXPECT_THAT(daemon_->log(), HasSubstr("show_env: FIXTURE_TOKEN=[secret FIXTURE_TOKEN]"));
    EXPECT_THAT(daemon_->log(), Not(HasSubstr(kAliceValue)));
    EXPECT_THAT(daemon_->log(), Not(HasSubstr(kOwnerValue)));
    // No file the host writes holds a value: the database keeps them sealed, the audit redacted.
    EXPECT_THAT(files_holding(kAliceValue), ::testing::IsEmpty());
    EXPECT_THAT(files_holding(kOwnerValue), ::testing::IsEmpty());
    struct stat key {};
    ASSERT_EQ(::stat((daemon_->home() / "secret.key").c_str(), &key), 0);
    EXPECT_EQ(key.st_mode & 0777, 0600u);
}

TEST_F(ServeForeignSecrets, AChangedValueReachesTheNextCall) {
    ASSERT_EQ(set("alice", kAliceValue).status, 200);
    ASSERT_EQ(show("alice").json().at("result").at("length").as_int64(), std::string(kAliceValue).size());
    ASSERT_EQ(set("alice", kAliceNewValue).status, 200);
    auto after = show("alice");
    ASSERT_EQ(after.status, 200) << after.body;
    EXPECT_EQ(after.json().at("result").at("length").as_int64(), std::string(kAliceNewValue).size());
    EXPECT_THAT(after.body, Not(HasSubstr(kAliceNewValue)));
}

TEST_F(ServeForeignSecrets, BadRequestsAreRefusedClearly) {
    auto short_value = set("alice", "short");
    EXPECT_EQ(short_value.status, 400) << short_value.body;
    EXPECT_THAT(short_value.body, HasSubstr("SECRET_INVALID"));
    auto two_lines = set("alice", "line-one-xx\nline-two");
    EXPECT_EQ(two_lines.status, 400) << two_lines.body;
    auto bad_name = put("/v1/secrets/1bad", R"({"value":"long-enough-value"})", "alice");
    EXPECT_EQ(bad_name.status, 400) << bad_name.body;
    auto unknown_field = put("/v1/secrets/FIXTURE_TOKEN", R"({"value":"long-enough-value","v":1})", "alice");
    EXPECT_EQ(unknown_field.status, 400) << unknown_field.body;
    EXPECT_THAT(unknown_field.body, HasSubstr("UNKNOWN_FIELD"));
    auto others = put("/v1/secrets/FIXTURE_TOKEN?user=owner", R"({"value":"long-enough-value"})", "alice");
    EXPECT_EQ(others.status, 403) << others.body;
    EXPECT_THAT(others.body, HasSubstr("SECRET_OF_ANOTHER_USER"));
    auto nobody = put("/v1/secrets/FIXTURE_TOKEN?user=mallory", R"({"value":"long-enough-value"})", "owner");
    EXPECT_EQ(nobody.status, 404) << nobody.body;
}

TEST_F(ServeForeignSecrets, ADeletedSecretIsNeededAgain) {
    ASSERT_EQ(set("alice", kAliceValue).status, 200);
    ASSERT_EQ(show("alice").status, 200);
    auto deleted = remove("/v1/secrets/FIXTURE_TOKEN", "alice");
    EXPECT_EQ(deleted.status, 200) << deleted.body;
    auto audited = daemon_->cli({"audit", "tail", "--kind", "secret_deleted", "--json"});
    EXPECT_THAT(audited.out, HasSubstr("FIXTURE_TOKEN")) << audited.err;
    EXPECT_THAT(daemon_->cli({"audit", "tail", "--kind", "secret_set", "--json"}).out, HasSubstr("\"by\":\"alice\""));
    EXPECT_THAT(show("alice").body, HasSubstr("UPSTREAM_SECRET_MISSING"));
    EXPECT_EQ(remove("/v1/secrets/FIXTURE_TOKEN", "alice").status, 404);
}

}  // namespace
}  // namespace skillhost::testing
