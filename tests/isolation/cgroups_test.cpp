// Runner cgroups over a directory laid out like a delegated cgroup v2 group: the host's group is
// found from /proc/self/cgroup, the host moves into a leaf of its own, and each runner's leaf gets
// its memory and task limits. (Whether this machine delegates real cgroups is reported, not assumed.)
#include "isolation_test_support.hpp"
#include "plugin/process_plugin.hpp"
#include "plugin/runner_cgroups.hpp"

#include <sys/wait.h>
#include <unistd.h>

namespace skillhost::plugin::testing {
namespace {

namespace fs = std::filesystem;

class CgroupsTest : public ::testing::Test {
protected:
    test::TempDir root{"skillhost-cgroup"};
    fs::path mount = root.path() / "mount";
    fs::path proc = root.path() / "self-cgroup";
    fs::path group = mount / "system.slice" / "skillhost.service";

    void SetUp() override {
        fs::create_directories(group);
        test::write_file(group / "cgroup.controllers", "cpuset cpu io memory pids\n");
        test::write_file(group / "cgroup.subtree_control", "");
        test::write_file(proc, "0::/system.slice/skillhost.service\n");
    }
};

TEST_F(CgroupsTest, ADelegatedGroupHoldsALeafPerRunnerWithItsLimits) {
    const CgroupPlacement placement = RunnerCgroups::detect(proc, mount, false);
    ASSERT_TRUE(placement.available) << placement.reason;
    EXPECT_EQ(placement.base, group);
    RunnerCgroups cgroups(placement);
    auto leaf = cgroups.create_leaf("echo", 256 << 20, 64);
    ASSERT_TRUE(leaf.ok()) << leaf.error().message;
    EXPECT_EQ(test::read_file(group / "skillhost-host" / "cgroup.procs"), std::to_string(::getpid()));
    EXPECT_EQ(test::read_file(group / "cgroup.subtree_control"), "+memory +pids");
    EXPECT_EQ(test::read_file(leaf.value() / "memory.max"), std::to_string(256 << 20));
    EXPECT_EQ(test::read_file(leaf.value() / "pids.max"), "64");
    EXPECT_EQ(test::read_file(leaf.value() / "memory.oom.group"), "1");
    auto second = cgroups.create_leaf("echo", 0, 0);
    ASSERT_TRUE(second.ok());
    EXPECT_NE(second.value(), leaf.value());
    EXPECT_FALSE(fs::exists(second.value() / "memory.max"));  // 0: not limited
    EXPECT_EQ(cgroups.describe().at("memory"), "cgroup v2 memory.max");
}

// A daemon killed with runners running leaves their leaves behind; the next host in the group
// removes those of hosts that are gone, and nothing of a live host's or of anyone else's.
TEST_F(CgroupsTest, LeavesOfAHostThatIsGoneAreRemovedByTheNext) {
    const pid_t gone = ::fork();
    if (gone == 0) ::_exit(0);
    ASSERT_GT(gone, 0);
    ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
    const fs::path stale = group / ("runner-" + std::to_string(gone) + "-echo-3");
    const fs::path busy = group / ("runner-" + std::to_string(gone) + "-echo-4");  // still has a process
    const fs::path live = group / ("runner-" + std::to_string(::getppid()) + "-echo-1");
    const fs::path other = group / "runner-cache";
    for (const fs::path& dir : {stale, busy, live, other}) fs::create_directories(dir);
    test::write_file(busy / "cgroup.procs", "4242\n");  // rmdir refuses a non-empty group, as the kernel does

    RunnerCgroups cgroups(RunnerCgroups::detect(proc, mount, false));
    auto leaf = cgroups.create_leaf("echo", 0, 0);
    ASSERT_TRUE(leaf.ok()) << leaf.error().message;
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(busy));
    EXPECT_TRUE(fs::exists(live));
    EXPECT_TRUE(fs::exists(other));
    EXPECT_EQ(leaf.value().filename().string().rfind("runner-" + std::to_string(::getpid()) + "-echo-", 0), 0u)
        << leaf.value();
}

TEST_F(CgroupsTest, WithoutTheControllersRunnersFallBackAndSayWhy) {
    test::write_file(group / "cgroup.controllers", "cpu io\n");
    const CgroupPlacement placement = RunnerCgroups::detect(proc, mount, false);
    EXPECT_FALSE(placement.available);
    EXPECT_NE(placement.reason.find("memory and pids controllers"), std::string::npos) << placement.reason;
    RunnerCgroups cgroups(placement);
    EXPECT_EQ(cgroups.create_leaf("echo", 1, 1).error().code, "CGROUP_FAILED");
    EXPECT_EQ(cgroups.describe().at("memory"), "RLIMIT_AS");
}

TEST_F(CgroupsTest, AHostInNoCgroupV2GroupFallsBack) {
    test::write_file(proc, "4:memory:/x\n1:cpu:/\n");
    EXPECT_FALSE(RunnerCgroups::detect(proc, mount, false).available);
    // A real mount that is not cgroup v2 (here: an ordinary directory) is refused too.
    EXPECT_FALSE(RunnerCgroups::detect(proc, mount, true).available);
}

class RunnerLimitsTest : public IsolationTest {};

TEST_F(RunnerLimitsTest, TheSandboxReportSaysHowMemoryIsLimited) {
    auto plugin = load("echo");
    ASSERT_TRUE(plugin);
    const auto report = plugin->sandbox();
    ASSERT_TRUE(report.contains("cgroup"));
    const auto& limits = report.at("limits").as_object();
    const bool cgroups = runner_cgroups().available();
    if (cgroups) {
        // Counted by the cgroup, memfd, shared memory and page cache included (v1 or v2).
        EXPECT_TRUE(limits.at("memory").as_string().starts_with("cgroup")) << limits.at("memory");
        EXPECT_EQ(limits.at("memory_bytes").as_int64(), 1024 << 20);
    } else {
        EXPECT_EQ(limits.at("memory"), "RLIMIT_AS");
    }
    if (!cgroups) {
        EXPECT_TRUE(report.at("cgroup").as_object().contains("reason"));
    }
}

}  // namespace
}  // namespace skillhost::plugin::testing
