// The sandbox in depth, probed by a hostile third-party plugin (fixture hostile_probe) from inside
// its runner: with the least permissions and with every one (hostile_probe_granted), every class of
// attack in docs/isolation.md's threat model is refused and the host shows no trace of it. Runs
// as the user ctest runs it as (root in CI) and, through tests/isolation/as_service_user.sh, as an
// unprivileged service user with a delegated cgroup (the systemd unit's User= and Delegate=yes).
#include "isolation_test_support.hpp"

#include "plugin/process_plugin.hpp"

#include "support/log_sink_scope.hpp"

#include <spdlog/spdlog.h>

#include <linux/keyctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>

namespace skillhost::plugin::testing {
namespace {

namespace fs = std::filesystem;

bool kernel_has_landlock() {
    return ::syscall(SYS_landlock_create_ruleset, nullptr, 0, 1U) >= 1;
}

// Records whom the host said each completion was for.
class RecordingCompletions final : public CompletionService {
public:
    Result<std::string> complete(const CompletionOrigin& origin, std::string_view, std::string_view) override {
        {
            std::lock_guard lock(mutex);
            users.emplace_back(origin.user_id);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a model takes a while
        return std::string(R"({"content":"ok","model":"m","backend":"test"})");
    }
    std::mutex mutex;
    std::vector<std::string> users;
};

std::size_t thread_count() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Threads:", 0) == 0) return std::stoul(line.substr(8));
    return 0;
}

class SandboxDepth : public IsolationTest, public ::testing::WithParamInterface<const char*> {
protected:
    void SetUp() override {
        IsolationTest::SetUp();
        if (!kernel_has_landlock()) GTEST_SKIP() << "this kernel has no Landlock";
        options.isolation.sandbox = SandboxMode::require;
        options.isolation.limits.memory_mb = 256;
        options.isolation.limits.disk_budget_mb = 32;
        options.completions = completions;
        workspace = home.path() / "workspace";
        fs::create_directories(workspace);
        test::write_file(home.path() / "owner.token", "secret-token\n");
        log = std::make_shared<test::CapturedLog>();
        log_scope = std::make_unique<test::LogSinkScope>(log);
        plugin = load(GetParam());
        ASSERT_TRUE(plugin);
    }
    void TearDown() override {
        plugin.reset();
        log_scope.reset();
    }

    bool granted() const { return std::string_view(GetParam()) == "hostile_probe_granted"; }

    RawOutcome raw(const std::string& name, const std::string& target = "", std::int64_t number = 0,
                   const std::string& user = "alice") {
        Call c = context("attack", user);
        c.workspace_root = workspace;
        boost::json::object args{{"name", name}, {"target", target}, {"number", number}};
        return plugin->invoke(c, boost::json::serialize(args));
    }

    // The attack's answer; an attack that ended its runner (killed, crashed) did not get through.
    boost::json::object attack(const std::string& name, const std::string& target = "", std::int64_t number = 0) {
        RawOutcome outcome = raw(name, target, number);
        if (outcome.written != RawOutcome::Written::result)
            return {{"allowed", false}, {"errno", -1}, {"detail", outcome.error_code + ": " + outcome.error_message}};
        return boost::json::parse(outcome.result_json).as_object();
    }

    void expect_refused(const std::string& name, const std::string& target = "", std::int64_t number = 0) {
        const auto answer = attack(name, target, number);
        EXPECT_FALSE(answer.at("allowed").as_bool()) << name << " (" << target << ") got through: " << answer;
    }

    fs::path data_dir(const std::string& user = "alice") const {
        return home.path() / "users" / user / "plugins" / "fixture";
    }

    std::shared_ptr<RecordingCompletions> completions = std::make_shared<RecordingCompletions>();
    std::shared_ptr<test::CapturedLog> log;
    std::unique_ptr<test::LogSinkScope> log_scope;
    std::shared_ptr<LoadedPlugin> plugin;
    fs::path workspace;
};

TEST_P(SandboxDepth, TheRunnerHasAnIdentityWithNothing) {
    const auto report = plugin->sandbox();
    ASSERT_TRUE(report.contains("namespaces")) << report;
    EXPECT_NE(report.at("namespaces").as_string().find("pid"), std::string::npos) << report;
    expect_refused("capabilities");
    expect_refused("userns");
    expect_refused("mount");
    // What it writes into its data directory belongs to the runner's user on disk, never to root
    // or the daemon, and carries no set-user-ID or set-group-ID bit.
    expect_refused("setuid_file", (data_dir() / "sh").string());
    ASSERT_TRUE(attack("write", (data_dir() / "note").string()).at("allowed").as_bool());
    struct stat st {};
    ASSERT_EQ(::stat((data_dir() / "note").c_str(), &st), 0);
    if (::geteuid() == 0) {
        EXPECT_NE(st.st_uid, 0u) << "a root daemon's runner wrote as root";
    }
    for (const auto& entry : fs::recursive_directory_iterator(data_dir())) {
        ASSERT_EQ(::lstat(entry.path().c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0u) << entry.path();
    }
}

TEST_P(SandboxDepth, TheHostsSecretsAreOutOfSight) {
    expect_refused("read", "/etc/shadow");
    expect_refused("read", (home.path() / "owner.token").string());
    expect_refused("list_dir", home.path().string());
    expect_refused("scan_proc", "skillhost_isolation_tests");  // the daemon's command line
    expect_refused("scan_proc", "HOME=");                      // any environment but its own
    expect_refused("count_processes");
    expect_refused("kernel_log");
    expect_refused("kernel_addresses");
    // A System V segment and a key of the daemon's.
    const key_t key = 0x5eed0000 + (::getpid() & 0xffff);
    const int segment = ::shmget(key, 4096, IPC_CREAT | 0666);
    ASSERT_GE(segment, 0);
    expect_refused("sysv_shm", "", key);
    ::shmctl(segment, IPC_RMID, nullptr);
    const std::string description = "skillhost-test-" + std::to_string(::getpid());
    const long id = ::syscall(SYS_add_key, "user", description.c_str(), "secret", 6, KEY_SPEC_SESSION_KEYRING);
    if (id >= 0) {
        expect_refused("keyring", description);
        ::syscall(SYS_keyctl, KEYCTL_INVALIDATE, id);
    }
}

TEST_P(SandboxDepth, ItsOutputIsItsOwnBoundedEscapedAndAttributed) {
    expect_refused("tiocsti");
    expect_refused("truncate_output");
    const auto before = log->bytes();
    ASSERT_TRUE(attack("write_output", "\x1b[31m[info] skillhost: forged line", 64).at("allowed").as_bool());
    // The pipe is read by another thread: wait until the host has logged the forged line.
    const std::string attributed = std::string("[plugin ") + GetParam() + " user alice] output: ";
    std::vector<std::string> lines;
    for (int i = 0; i < 500; ++i) {
        lines = log->lines();
        if (std::any_of(lines.begin(), lines.end(),
                        [](const std::string& l) { return l.find("forged line") != std::string::npos; }))
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    bool seen = false;
    for (const auto& line : lines) {
        if (line.find("forged line") == std::string::npos) continue;
        seen = true;
        EXPECT_EQ(line.rfind(attributed, 0), 0u) << line;
        EXPECT_EQ(line.find('\x1b'), std::string::npos) << "a raw escape reached the log: " << line;
    }
    EXPECT_TRUE(seen);
    // 64 MiB written, at most a rate's worth logged.
    EXPECT_LT(log->bytes() - before, std::size_t{1} << 20);
}

TEST_P(SandboxDepth, NoSocketReachesOtherUsersTraffic) {
    expect_refused("packet_socket");
    expect_refused("raw_socket");
    expect_refused("netlink_socket");
    expect_refused("vsock_socket");
    expect_refused("unix_socket");
    expect_refused("lo_down");
    // A unix socket of the host's, outside the sandbox.
    const fs::path path = home.path() / "host.sock";
    const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ::chmod(path.c_str(), 0777);
    ASSERT_EQ(::listen(listener, 4), 0);
    expect_refused("unix_connect", path.string());
    ::close(listener);
}

TEST_P(SandboxDepth, TheDaemonIsNoTarget) {
    const std::int64_t daemon = ::getpid();
    for (const char* name : {"prlimit_pid", "setpriority_pid", "sched_pid", "ioprio_pid", "kill_pid", "ptrace_pid"})
        expect_refused(name, "", daemon);
    expect_refused("realtime");
    {
        // Users appearing in the home, watched from inside while the host makes them.
        std::atomic<bool> watching{true};
        std::thread host_side([&] {
            for (int i = 0; watching && i < 200; ++i) {
                fs::create_directories(home.path() / ("user-" + std::to_string(i)));
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        });
        expect_refused("inotify", home.path().string(), 400);
        watching = false;
        host_side.join();
    }
    expect_refused("fanotify");
    expect_refused("perf");
    expect_refused("bpf");
    expect_refused("settime");
    char before[256] = {}, after[256] = {};
    ::gethostname(before, sizeof before - 1);
    expect_refused("sethostname");
    ::gethostname(after, sizeof after - 1);
    EXPECT_STREQ(before, after);
    expect_refused("exec");
    expect_refused("fork");
    expect_refused("io_uring");
    expect_refused("write", (home.path() / "planted").string());
    EXPECT_FALSE(fs::exists(home.path() / "planted"));
}

TEST_P(SandboxDepth, HostServicesActForTheCallInFlightOnly) {
    // A completion whose call context claims another user is the caller's.
    RawOutcome forged = raw("forged_completion", "alice", 0, "bob");
    if (granted()) {
        EXPECT_EQ(forged.written, RawOutcome::Written::result) << forged.error_code << ": " << forged.error_message;
        std::lock_guard lock(completions->mutex);
        ASSERT_FALSE(completions->users.empty());
        for (const auto& user : completions->users) EXPECT_EQ(user, "bob");
    } else {
        EXPECT_EQ(forged.error_code, "LLM_NOT_PERMITTED");
    }
    // Raw requests written to the runner's socket: none without a call in flight, a bounded
    // number for the call that is, never a daemon thread each.
    const std::size_t threads = thread_count();
    const auto flood = raw("flood_host_requests", "", 1500, "carol");  // each request claims "alice"
    (void)flood;
    EXPECT_LT(thread_count(), threads + 24) << "host requests made daemon threads without bound";
    std::lock_guard lock(completions->mutex);
    // Only requests naming the call in flight are answered: the flood names sequences 0..63 in
    // turn, so at most 24 of its 1,500 (plus the forged one above).
    EXPECT_LE(completions->users.size(), 1u + 24u) << "requests outside the call in flight were answered";
    for (const auto& user : completions->users) EXPECT_NE(user, "alice") << "attributed to the runner's word";
}

TEST_P(SandboxDepth, LimitsCountEverything) {
    // 768 MiB in a memfd under a 256 MiB limit, and 1 GiB into a 32 MiB disk budget.
    expect_refused("memfd_hog", "", 768);
    expect_refused("disk_hog", data_dir().string(), 1024);
    std::uint64_t written = 0;
    for (const auto& entry : fs::recursive_directory_iterator(data_dir()))
        if (entry.is_regular_file()) written += entry.file_size();
    // A tripwire, not a quota: a plugin writing flat out gets some way past it, never far.
    EXPECT_LT(written, std::uint64_t{512} << 20) << "the disk budget let " << written << " bytes through";
    // Over its budget, the plugin's data takes no more calls, with a clear error.
    ASSERT_GT(written, std::uint64_t{32} << 20);
    RawOutcome next = raw("count_processes");
    EXPECT_EQ(next.error_code, "DISK_BUDGET_EXCEEDED") << next.error_message;
    EXPECT_NE(next.error_message.find("disk_budget_mb"), std::string::npos) << next.error_message;
    // Removing files lets it work again.
    for (const auto& entry : fs::directory_iterator(data_dir()))
        if (entry.path().filename().string().rfind("hog-", 0) == 0) fs::remove(entry.path());
    EXPECT_EQ(raw("count_processes").written, RawOutcome::Written::result);
}

INSTANTIATE_TEST_SUITE_P(Permissions, SandboxDepth, ::testing::Values("hostile_probe", "hostile_probe_granted"),
                         [](const ::testing::TestParamInfo<const char*>& param) { return std::string(param.param); });

}  // namespace
}  // namespace skillhost::plugin::testing
