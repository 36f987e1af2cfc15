// The runner's sandbox, probed from inside by a plugin: what the manifest does not declare is
// refused and the refusal is visible; what it declares works.
#include "isolation_test_support.hpp"

#include <netinet/in.h>
#include <cerrno>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace skillhost::plugin::testing {
namespace {

bool kernel_has_landlock() {
    return ::syscall(SYS_landlock_create_ruleset, nullptr, 0, 1U) >= 1;
}

// A loopback TCP listener on a free port.
class Listener {
public:
    Listener() {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        EXPECT_EQ(::listen(fd_, 8), 0);
        socklen_t size = sizeof address;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size);
        port_ = ntohs(address.sin_port);
    }
    ~Listener() { ::close(fd_); }
    int port() const { return port_; }

private:
    int fd_ = -1;
    int port_ = 0;
};

class SandboxTest : public IsolationTest {
protected:
    void SetUp() override {
        IsolationTest::SetUp();
        if (!kernel_has_landlock()) GTEST_SKIP() << "this kernel has no Landlock";
        options.isolation.sandbox = SandboxMode::require;
        workspace = home.path() / "workspace";
        std::filesystem::create_directories(workspace);
    }

    boost::json::object probe(const LoadedPlugin& plugin, const std::string& skill, const std::string& args) {
        Call c = context(skill);
        c.workspace_root = workspace;
        RawOutcome outcome = plugin.invoke(c, args);
        EXPECT_EQ(outcome.written, RawOutcome::Written::result) << outcome.error_code << ": " << outcome.error_message;
        if (outcome.written != RawOutcome::Written::result) return {};
        return boost::json::parse(outcome.result_json).as_object();
    }

    static std::string path_args(const std::filesystem::path& path) { return R"({"path":")" + path.string() + R"("})"; }

    std::filesystem::path workspace;
};

void expect_refused(const boost::json::object& answer, const char* what) {
    ASSERT_TRUE(answer.contains("allowed")) << what;
    EXPECT_FALSE(answer.at("allowed").as_bool()) << what;
    EXPECT_NE(answer.at("errno").as_int64(), 0) << what;
}

void expect_allowed(const boost::json::object& answer, const char* what) {
    ASSERT_TRUE(answer.contains("allowed")) << what;
    EXPECT_TRUE(answer.at("allowed").as_bool()) << what << ": " << answer.at("error").as_string();
}

TEST_F(SandboxTest, EscapesAreRefusedAndTheRefusalIsVisible) {
    const auto token = home.path() / "owner.token";
    test::write_file(token, "secret-token\n");
    const auto other_user = home.path() / "users" / "bob" / "plugins" / "fixture" / "notes.txt";
    std::filesystem::create_directories(other_user.parent_path());
    test::write_file(other_user, "bob's notes\n");
    Listener listener;

    auto plugin = load("sandbox_probe");
    ASSERT_TRUE(plugin);
    const auto enforced = plugin->sandbox();
    EXPECT_GE(enforced.at("landlock_abi").as_int64(), 1);
    EXPECT_TRUE(enforced.at("no_new_privs").as_bool());

    expect_refused(probe(*plugin, "read_file", path_args(token)), "reading the host's token");
    expect_refused(probe(*plugin, "read_file", path_args(other_user)), "reading another user's data");
    expect_refused(probe(*plugin, "write_file", path_args(home.path() / "planted")), "writing outside the data dir");
    EXPECT_FALSE(std::filesystem::exists(home.path() / "planted"));
    expect_refused(probe(*plugin, "write_file", path_args(workspace / "w.txt")), "writing the undeclared workspace");
    expect_refused(probe(*plugin, "connect_tcp", R"({"port":)" + std::to_string(listener.port()) + "}"),
                   "connecting to loopback TCP");
    expect_refused(probe(*plugin, "exec_shell", "{}"), "running a shell");
    const auto fork_answer = probe(*plugin, "fork_child", "{}");
    expect_refused(fork_answer, "starting a process");
    EXPECT_EQ(fork_answer.at("errno").as_int64(), EPERM);
    EXPECT_TRUE(enforced.contains("processes"));
    expect_allowed(probe(*plugin, "start_thread", "{}"), "starting a thread");
    // Its own data directory is its to use.
    const auto own = home.path() / "users" / "alice" / "plugins" / "fixture" / "mine.txt";
    expect_allowed(probe(*plugin, "write_file", path_args(own)), "writing its data dir");
    expect_allowed(probe(*plugin, "read_file", path_args(own)), "reading its data dir");
}

TEST_F(SandboxTest, DeclaredPermissionsAreGranted) {
    Listener listener;
    auto plugin = load("sandbox_probe_allowed");
    ASSERT_TRUE(plugin);
    expect_allowed(probe(*plugin, "write_file", path_args(workspace / "w.txt")), "writing the declared workspace");
    expect_allowed(probe(*plugin, "connect_tcp", R"({"port":)" + std::to_string(listener.port()) + "}"),
                   "connecting with network declared");
    // Declaring things never opens the host's own files or exec.
    const auto token = home.path() / "owner.token";
    test::write_file(token, "secret-token\n");
    expect_refused(probe(*plugin, "read_file", path_args(token)), "reading the host's token");
    expect_refused(probe(*plugin, "exec_shell", "{}"), "running a shell");
    expect_refused(probe(*plugin, "fork_child", "{}"), "starting a process (no permission grants it)");
    expect_allowed(probe(*plugin, "start_thread", "{}"), "starting a thread");
}

TEST_F(SandboxTest, SandboxOffLeavesTheRunnerUnconfined) {
    options.isolation.sandbox = SandboxMode::off;
    auto plugin = load("sandbox_probe");
    ASSERT_TRUE(plugin);
    EXPECT_FALSE(plugin->sandbox().contains("landlock_abi"));
    expect_allowed(probe(*plugin, "write_file", path_args(workspace / "w.txt")), "writing without a sandbox");
    expect_allowed(probe(*plugin, "fork_child", "{}"), "starting a process without a sandbox");
}

}  // namespace
}  // namespace skillhost::plugin::testing
