// Path rules over the real daemon on a fresh home: the built-in default policy (no policy.yaml)
// denies `.ssh` and `*.pem`, and holds for the directory itself and for every entry fs_list and
// fs_search would otherwise show, through the "skillhost.path_check/1" extension.
#include "daemon_process.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace json = boost::json;
namespace fs = std::filesystem;

class ServePathRules : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        daemon_ = new DaemonProcess(DaemonSetup{});
        // A new user's home: no policy file at all, so the built-in default applies.
        fs::remove(daemon_->etc() / "policy.yaml");
        const fs::path ws = daemon_->home() / "workspace" / "alice";
        fs::create_directories(ws / ".ssh");
        fs::create_directories(ws / "docs");
        write_file(ws / ".ssh" / "id_ed25519", "-----BEGIN KEY----- SECRET private key\n");
        write_file(ws / ".ssh" / "config", "Host x SECRET\n");
        write_file(ws / "server.pem", "SECRET certificate key\n");
        write_file(ws / "docs" / "notes.txt", "a SECRET plan\n");
        daemon_->start();
    }
    static void TearDownTestSuite() {
        delete daemon_;
        daemon_ = nullptr;
    }
    static DaemonProcess& d() { return *daemon_; }
    static json::value call(const std::string& skill, const std::string& args) {
        auto reply = d().post("/v1/skills/" + skill + "/call", "{\"args\":" + args + "}", "alice");
        return reply.body.empty() ? json::value() : reply.json();
    }
    static std::string error_code(const json::value& reply) {
        const auto* error = reply.as_object().if_contains("error");
        return error ? std::string(error->at("code").as_string()) : std::string();
    }
    static inline DaemonProcess* daemon_ = nullptr;
};

TEST_F(ServePathRules, TheDefaultPolicyDeniesReadingAKeyOnAFreshHome) {
    const auto reply = call("fs_read", R"({"path":".ssh/id_ed25519"})");
    EXPECT_EQ(error_code(reply), "DENIED_BY_RULE") << reply;
    EXPECT_THAT(json::serialize(reply), Not(HasSubstr("private key")));
    EXPECT_EQ(error_code(call("fs_read", R"({"path":"server.pem"})")), "DENIED_BY_RULE");
}

TEST_F(ServePathRules, ARuleOnEverythingInsideADirectoryCoversListingAndSearchingTheDirectory) {
    EXPECT_EQ(error_code(call("fs_list", R"({"path":".ssh"})")), "DENIED_BY_RULE");
    EXPECT_EQ(error_code(call("fs_search", R"({"path":".ssh","text":"SECRET"})")), "DENIED_BY_RULE");
}

TEST_F(ServePathRules, SearchingTheWorkspaceWithholdsDeniedEntriesAndSaysHowMany) {
    const auto reply = call("fs_search", R"({"path":".","text":"SECRET","include_hidden":true})");
    ASSERT_TRUE(reply.at("ok").as_bool()) << reply;
    const std::string text = json::serialize(reply);
    EXPECT_THAT(text, HasSubstr("a SECRET plan"));
    EXPECT_THAT(text, Not(HasSubstr("private key")));
    EXPECT_THAT(text, Not(HasSubstr("certificate")));
    EXPECT_THAT(text, Not(HasSubstr("Host x")));
    const auto& result = reply.at("result");
    EXPECT_EQ(result.at("count").to_number<int>(), 1);
    EXPECT_EQ(result.at("withheld").to_number<int>(), 2);  // the .ssh directory and server.pem
    EXPECT_THAT(std::string(result.at("withheld_note").as_string()), HasSubstr("path rules"));
}

TEST_F(ServePathRules, ListingTheWorkspaceRecursivelyWithholdsDeniedEntries) {
    const auto reply = call("fs_list", R"({"path":".","recursive":true,"include_hidden":true})");
    ASSERT_TRUE(reply.at("ok").as_bool()) << reply;
    std::vector<std::string> paths;
    for (const auto& e : reply.at("result").at("entries").as_array()) paths.emplace_back(e.at("path").as_string());
    EXPECT_THAT(paths, ::testing::UnorderedElementsAre("docs", "docs/notes.txt"));
    EXPECT_EQ(reply.at("result").at("withheld").to_number<int>(), 2);
}

TEST_F(ServePathRules, AllowedListingsReportNothingWithheld) {
    const auto reply = call("fs_list", R"({"path":"docs"})");
    ASSERT_TRUE(reply.at("ok").as_bool()) << reply;
    EXPECT_EQ(reply.at("result").at("withheld").to_number<int>(), 0);
    EXPECT_FALSE(reply.at("result").as_object().contains("withheld_note"));
}

}  // namespace
}  // namespace skillhost::testing
