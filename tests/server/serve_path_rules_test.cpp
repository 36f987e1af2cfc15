// Path rules over the real daemon on a fresh home: the built-in default policy (no policy.yaml)
// denies `.ssh` and `*.pem`, and holds for the directory itself and for every entry fs_list and
// fs_search would otherwise show, through the "skillhost.path_check/1" extension. Each test runs
// twice: with fs in the host, and with fs in a sandboxed runner process that asks the host per path.
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

class ServePathRules : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (!daemon_ || mode_ != GetParam()) start_daemon(GetParam());
    }
    static void start_daemon(const std::string& mode) {
        delete daemon_;
        mode_ = mode;
        DaemonSetup setup;
        setup.extra_yaml = "isolation:\n  plugins:\n    fs: " + mode + "\n";
        daemon_ = new DaemonProcess(setup);
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
    static inline std::string mode_;
};

TEST_P(ServePathRules, FsRunsInTheConfiguredMode) {
    const json::value ready = d().get("/readyz").json();
    std::string fs_mode;
    for (const auto& entry : ready.at("checks").at("isolation").at("plugins").as_array())
        if (entry.at("plugin") == "fs") fs_mode = entry.at("mode").as_string();
    EXPECT_EQ(fs_mode, GetParam()) << ready;
}

TEST_P(ServePathRules, TheDefaultPolicyDeniesReadingAKeyOnAFreshHome) {
    const auto reply = call("fs_read", R"({"path":".ssh/id_ed25519"})");
    EXPECT_EQ(error_code(reply), "DENIED_BY_RULE") << reply;
    EXPECT_THAT(json::serialize(reply), Not(HasSubstr("private key")));
    EXPECT_EQ(error_code(call("fs_read", R"({"path":"server.pem"})")), "DENIED_BY_RULE");
}

TEST_P(ServePathRules, ARuleOnEverythingInsideADirectoryCoversListingAndSearchingTheDirectory) {
    EXPECT_EQ(error_code(call("fs_list", R"({"path":".ssh"})")), "DENIED_BY_RULE");
    EXPECT_EQ(error_code(call("fs_search", R"({"path":".ssh","text":"SECRET"})")), "DENIED_BY_RULE");
}

TEST_P(ServePathRules, SearchingTheWorkspaceWithholdsDeniedEntriesAndSaysHowMany) {
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

TEST_P(ServePathRules, ListingTheWorkspaceRecursivelyWithholdsDeniedEntries) {
    const auto reply = call("fs_list", R"({"path":".","recursive":true,"include_hidden":true})");
    ASSERT_TRUE(reply.at("ok").as_bool()) << reply;
    std::vector<std::string> paths;
    for (const auto& e : reply.at("result").at("entries").as_array()) paths.emplace_back(e.at("path").as_string());
    EXPECT_THAT(paths, ::testing::UnorderedElementsAre("docs", "docs/notes.txt"));
    EXPECT_EQ(reply.at("result").at("withheld").to_number<int>(), 2);
}

TEST_P(ServePathRules, AllowedListingsReportNothingWithheld) {
    const auto reply = call("fs_list", R"({"path":"docs"})");
    ASSERT_TRUE(reply.at("ok").as_bool()) << reply;
    EXPECT_EQ(reply.at("result").at("withheld").to_number<int>(), 0);
    EXPECT_FALSE(reply.at("result").as_object().contains("withheld_note"));
}

INSTANTIATE_TEST_SUITE_P(BothModes, ServePathRules, ::testing::Values("in_process", "process"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace skillhost::testing
