// A foreign MCP server runs in the sandbox of third-party plugin runners (skillhost-runner's server
// mode): the real fixture server, started by the real loader, is asked to do what a hostile server
// would, and each attempt is refused, while the same attempt succeeds with `sandbox: off` (so a
// refusal is the sandbox's doing, not the test's).
#include "plugin_test_support.hpp"

#include <gmock/gmock.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace skillhost::plugin {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A TCP listener on loopback for the server to try to reach.
class LoopbackListener {
public:
    LoopbackListener() {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), size) != 0 || ::listen(fd_, 8) != 0 ||
            ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) != 0)
            ADD_FAILURE() << "no loopback listener";
        port_ = ntohs(address.sin_port);
    }
    ~LoopbackListener() {
        if (fd_ >= 0) ::close(fd_);
    }
    int port() const { return port_; }

private:
    int fd_ = -1;
    int port_ = 0;
};

class ForeignSandboxTest : public testing::LoaderTest {
protected:
    test::TempDir plugins{"skillhost-foreign-sandbox"};
    test::TempDir outside{"skillhost-outside"};  // the host's files: nothing the server was given

    std::shared_ptr<LoadedPlugin> load(SandboxMode mode, const std::string& flags = "", const std::string& extra = "") {
        const auto file = plugins / "fixture.yaml";
        std::string args = "[";
        std::istringstream words(flags);
        for (std::string word; words >> word;) args += (args.size() > 1 ? ", \"" : "\"") + word + "\"";
        args += "]";
        test::write_file(file, "kind: mcp_server\nname: fixture\ntransport: stdio\ncommand: " +
                                   (test::fixture_dir("foreign_mcp") / "skillhost_fixture_mcp_server").string() +
                                   "\nargs: " + args + "\n" + extra);
        auto server = manifest::load_foreign_server(file);
        if (!server) {
            ADD_FAILURE() << server.error().message;
            return nullptr;
        }
        LoaderOptions options{cache.path(), nullptr};
        options.isolation.sandbox = mode;
        auto loaded = PluginLoader(options).load_foreign(server.value());
        if (!loaded) {
            ADD_FAILURE() << loaded.error().code << ": " << loaded.error().message;
            return nullptr;
        }
        return loaded.value();
    }

    // The text of a call's result (its error message when it failed).
    std::string text_of(const LoadedPlugin& plugin, const std::string& skill, const std::string& args) {
        const RawOutcome outcome = plugin.invoke(context(skill), args);
        if (outcome.written != RawOutcome::Written::result) return outcome.error_code + ": " + outcome.error_message;
        const auto result = testing::parse(outcome.result_json);
        for (const char* field : {"text", "message"})
            if (const auto* text = result.as_object().if_contains(field)) return std::string(text->as_string());
        return outcome.result_json;
    }

    std::string probe(const LoadedPlugin& plugin, const std::string& action, int port = 0) {
        return text_of(plugin, "fixture__probe",
                       "{\"action\":\"" + action + "\",\"port\":" + std::to_string(port) + "}");
    }
};

TEST_F(ForeignSandboxTest, TheHostsFilesAreOutOfReachAndItsDataDirectoryIsItsOwn) {
    const auto secret = outside / "secret.txt";
    test::write_file(secret, "the host's secret");
    const std::string read_secret = "{\"paths\":[\"" + secret.string() + "\"]}";
    const auto written = outside / "planted.txt";
    const std::string plant = "{\"path\":\"" + written.string() + "\",\"text\":\"planted\"}";

    auto open = load(SandboxMode::off);
    ASSERT_TRUE(open);
    EXPECT_EQ(text_of(*open, "fixture__read_paths", read_secret), "the host's secret") << "the control run";
    open.reset();

    auto confined = load(SandboxMode::best_effort);
    ASSERT_TRUE(confined);
    EXPECT_THAT(text_of(*confined, "fixture__read_paths", read_secret), HasSubstr("cannot read"));
    EXPECT_THAT(text_of(*confined, "fixture__write_note", plant), HasSubstr("cannot write"));
    EXPECT_FALSE(std::filesystem::exists(written));
    // Its declaration's directory is readable, not writable.
    EXPECT_THAT(
        text_of(*confined, "fixture__write_note", "{\"path\":\"" + (plugins / "x.txt").string() + "\",\"text\":\"x\"}"),
        HasSubstr("cannot write"));
    // The user's data directory is where it may keep things, and its HOME.
    const auto data_dir = context("fixture__echo").data_dir;
    EXPECT_THAT(text_of(*confined, "fixture__write_note",
                        "{\"path\":\"" + (data_dir / "note.txt").string() + "\",\"text\":\"kept\"}"),
                HasSubstr("wrote 4 bytes"));
    EXPECT_TRUE(std::filesystem::exists(data_dir / "note.txt"));
    EXPECT_EQ(text_of(*confined, "fixture__env", R"({"name":"HOME"})"), data_dir.string());
}

TEST_F(ForeignSandboxTest, NoProcessesNoSocketsNoTracingAndNoSignalsOutside) {
    LoopbackListener listener;
    auto open = load(SandboxMode::off);
    ASSERT_TRUE(open);
    EXPECT_EQ(probe(*open, "spawn"), "ok") << "the control run";
    EXPECT_EQ(probe(*open, "tcp", listener.port()), "ok");
    EXPECT_EQ(probe(*open, "unix_socket"), "ok");
    EXPECT_EQ(probe(*open, "signal_parent"), "ok");
    open.reset();

    auto confined = load(SandboxMode::best_effort);
    ASSERT_TRUE(confined);
    EXPECT_THAT(probe(*confined, "spawn"), StartsWith("denied"));
    EXPECT_THAT(probe(*confined, "tcp", listener.port()), StartsWith("denied"));
    EXPECT_THAT(probe(*confined, "unix_socket"), StartsWith("denied"));
    EXPECT_THAT(probe(*confined, "ptrace"), StartsWith("denied"));
    EXPECT_THAT(probe(*confined, "signal_parent"), StartsWith("denied"));
}

TEST_F(ForeignSandboxTest, PermissionsNetworkLetsItConnect) {
    LoopbackListener listener;
    auto confined = load(SandboxMode::best_effort, "", "permissions: {network: true}\n");
    ASSERT_TRUE(confined);
    EXPECT_EQ(probe(*confined, "tcp", listener.port()), "ok");
    EXPECT_THAT(probe(*confined, "unix_socket"), StartsWith("denied")) << "network means TCP/UDP, never unix sockets";
    EXPECT_THAT(probe(*confined, "spawn"), StartsWith("denied"));
}

TEST_F(ForeignSandboxTest, WhatTheSandboxEnforcesIsShown) {
    auto confined = load(SandboxMode::best_effort);
    ASSERT_TRUE(confined);
    const boost::json::object report = confined->sandbox();
    EXPECT_EQ(report.at("mode"), "best_effort");
    EXPECT_EQ(report.at("exec"), "system directories and the declared files only");
    EXPECT_TRUE(report.contains("seccomp"));
    EXPECT_TRUE(report.contains("landlock_abi"));
    auto open = load(SandboxMode::off);
    ASSERT_TRUE(open);
    EXPECT_TRUE(open->sandbox().empty());
}

TEST_F(ForeignSandboxTest, ACrashInTheSandboxIsReportedWithItsExitAndNotResent) {
    auto confined = load(SandboxMode::best_effort, "--crash-on-call 1");
    ASSERT_TRUE(confined);
    const RawOutcome crashed = confined->invoke(context("fixture__echo"), R"({"message":"boom"})");
    EXPECT_EQ(crashed.error_code, "PLUGIN_CRASHED");
    EXPECT_THAT(crashed.error_message, HasSubstr("exited with status 3"));
}

TEST_F(ForeignSandboxTest, ADataDirectoryPlaceholderGivesTheServerAPlaceToWrite) {
    auto confined = load(SandboxMode::best_effort, "--log ${data_dir}/received.log");
    ASSERT_TRUE(confined);
    ASSERT_EQ(text_of(*confined, "fixture__echo", R"({"message":"logged"})"), "logged");
    std::ifstream log(context("fixture__echo").data_dir / "received.log");
    std::stringstream text;
    text << log.rdbuf();
    EXPECT_THAT(text.str(), HasSubstr("\"logged\""));
}

}  // namespace
}  // namespace skillhost::plugin
