// Faults under a running `skillhost serve`: a full audit file system, a full home, damaged
// configuration. Disks are small tmpfs mounts, which needs root (CI runs as root; elsewhere these
// tests skip and say why). Root also bypasses chmod, so permission faults are not simulated here.
#include "daemon_process.hpp"
#include "support/subprocess.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <sys/mount.h>
#include <unistd.h>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;
namespace json = boost::json;

// A tmpfs of `size` mounted on `dir` for the test's lifetime (detached at the end, so files the
// daemon still holds do not keep it busy).
class SmallDisk {
public:
    SmallDisk(const fs::path& dir, std::string_view size) : dir_(dir) {
        fs::create_directories(dir);
        const std::string options = "size=" + std::string(size) + ",mode=0755";
        if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0)
            throw std::runtime_error("mount tmpfs on " + dir.string() + ": " + std::strerror(errno));
    }
    ~SmallDisk() { ::umount2(dir_.c_str(), MNT_DETACH); }
    SmallDisk(const SmallDisk&) = delete;
    SmallDisk& operator=(const SmallDisk&) = delete;

    // Writes a filler file until the disk refuses more.
    void fill() {
        const int fd = ::open((dir_ / "filler").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        ASSERT_GE(fd, 0) << std::strerror(errno);
        const std::string block(64 * 1024, 'x');
        for (int i = 0; i < 100000; ++i) {
            if (::write(fd, block.data(), block.size()) < 0) break;
        }
        // Whatever fits in a smaller piece too, so no page is left with room for a record.
        for (int i = 0; i < 100000; ++i) {
            if (::write(fd, block.data(), 16) < 0) break;
        }
        ::close(fd);
    }
    void free_space() { fs::remove(dir_ / "filler"); }

private:
    fs::path dir_;
};

bool is_root() {
    return ::geteuid() == 0;
}

// A system program's path (run_process takes no PATH search; mkfs and e2fsck live in sbin).
std::string system_tool(const std::string& name) {
    for (const char* dir : {"/usr/sbin", "/sbin", "/usr/bin", "/bin"})
        if (fs::exists(fs::path(dir) / name)) return (fs::path(dir) / name).string();
    return name;
}

// An ext4 file system in an image file, loop-mounted on `dir` with errors=remount-ro, so that an
// injected error turns it read-only under the running daemon (as a failing disk does), and that
// after the daemon stops can be checked (e2fsck) and mounted again. `why` says what is missing
// when the machine cannot do this (no loop devices in a container).
class FailingDisk {
public:
    FailingDisk(const fs::path& dir, const fs::path& image, std::string& why) : dir_(dir), image_(image) {
        fs::create_directories(dir);
        fs::create_directories(image.parent_path());
        auto made = run_process({system_tool("truncate"), "-s", "64M", image.string()});
        if (made.exit_code == 0) made = run_process({system_tool("mkfs.ext4"), "-q", "-F", image.string()});
        if (made.exit_code != 0) {
            why = "cannot make an ext4 image: " + made.err;
            return;
        }
        why = mount();
    }
    ~FailingDisk() {
        if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    }
    FailingDisk(const FailingDisk&) = delete;
    FailingDisk& operator=(const FailingDisk&) = delete;

    // What the kernel does on an I/O error under errors=remount-ro: the file system turns
    // read-only at once, with the daemon's files still open.
    void fail() {
        const auto device = run_process({system_tool("findmnt"), "-n", "-o", "SOURCE", dir_.string()});
        std::string name = fs::path(device.out.substr(0, device.out.find('\n'))).filename().string();
        std::ofstream(fs::path("/sys/fs/ext4") / name / "trigger_fs_error") << "1";
        for (int i = 0; i < 200 && !read_only(); ++i) ::usleep(10000);
        ASSERT_TRUE(read_only()) << "the injected error did not turn " << dir_ << " read-only";
    }
    // Remounted read-only, or (ext4 since Linux 6.x) flagged emergency_ro: writes fail with EROFS.
    bool read_only() const {
        const std::string options =
            "," + run_process({system_tool("findmnt"), "-n", "-o", "OPTIONS", dir_.string()}).out + ",";
        return options.find(",ro,") != std::string::npos || options.find(",emergency_ro") != std::string::npos;
    }
    // What an operator does once the daemon has stopped: unmount, e2fsck, mount again.
    //
    // Unmounting here does not always end the file system: a sandboxed runner (this daemon's,
    // still exiting, or another test's being set up) holds a copy of the mount in its own mount
    // namespace, and a mount of the same image while that copy lives gets the same, still
    // read-only, file system back. So wait until the kernel lets go of the image (its loop device
    // detaches itself with the last user); if something keeps it past the wait, check and mount a
    // copy of the image instead, which is what the stored bytes are.
    void repair() {
        ASSERT_EQ(::umount2(dir_.c_str(), 0), 0) << std::strerror(errno);
        mounted_ = false;
        bool released = false;
        for (int i = 0; i < 300 && !(released = loop_devices_of_image().empty()); ++i) ::usleep(100000);
        if (!released) {
            const fs::path copy = image_.string() + ".repaired";
            fs::copy_file(image_, copy, fs::copy_options::overwrite_existing);
            image_ = copy;
        }
        const auto checked = run_process({system_tool("e2fsck"), "-fy", image_.string()});
        ASSERT_LT(checked.exit_code, 4) << checked.out << checked.err;  // 0-3: clean or corrected
        ASSERT_EQ(mount(), "");
        ASSERT_FALSE(read_only()) << dir_ << " is still read-only after e2fsck and a fresh mount of " << image_
                                  << " (the image was " << (released ? "" : "not ") << "released by the kernel)";
    }

private:
    // The loop devices still attached to the image ("" once the kernel has let go of it).
    std::string loop_devices_of_image() const {
        return run_process({system_tool("losetup"), "-j", image_.string()}).out;
    }
    std::string mount() {
        const auto mounted =
            run_process({system_tool("mount"), "-o", "loop,errors=remount-ro", image_.string(), dir_.string()});
        if (mounted.exit_code != 0) return "cannot loop-mount an ext4 image: " + mounted.err;
        mounted_ = true;
        return "";
    }
    fs::path dir_;
    fs::path image_;
    bool mounted_ = false;
};

#define SKIP_UNLESS_ROOT() \
    if (!is_root())        \
    GTEST_SKIP() << "mounting a small tmpfs needs root (CI runs as root); skipped as uid " << ::geteuid()

// A daemon whose policy asks before `skill`, with readiness checked afresh on every probe.
DaemonSetup asking_before(const std::string& skill) {
    DaemonSetup setup;
    setup.policy_yaml = "global:\n  ask: [\"" + skill + "\"]\n";
    setup.server_yaml = "  readiness_cache_ms: 0\n";
    return setup;
}

// Filling the disk leaves the audit day file's last page with room: read-only calls use it up
// until the first one is refused (each refused call is itself the check that nothing unaudited runs).
void exhaust_audit_space(DaemonProcess& d) {
    for (int i = 0; i < 500; ++i) {
        auto listed = d.post("/v1/skills/task_list/call", "{}", "alice");
        if (listed.error_code() == "AUDIT_WRITE_FAILED") {
            EXPECT_EQ(listed.status, 503) << listed.body;
            EXPECT_THAT(listed.body, HasSubstr("No space left on device"));
            return;
        }
        ASSERT_EQ(listed.status, 200) << listed.body;
    }
    FAIL() << "the audit log never ran out of space";
}

std::string task_titles(DaemonProcess& d) {
    auto listed = d.post("/v1/skills/task_list/call", "{}", "alice");
    EXPECT_EQ(listed.status, 200) << listed.body;
    return listed.body;
}

TEST(ServeFaults, ApprovingWhileTheAuditLogCannotBeWrittenRefusesAndRunsNothing) {
    SKIP_UNLESS_ROOT();
    DaemonProcess d(asking_before("task_create"));
    SmallDisk audit(d.home() / "audit", "256k");
    d.start();

    auto queued = d.post("/v1/skills/task_create/call", R"({"args":{"title":"call the dentist"}})", "alice");
    ASSERT_EQ(queued.status, 202) << queued.body;
    const std::string id(queued.json().at("approval_id").as_string());
    EXPECT_EQ(d.get("/readyz", "").status, 200);

    audit.fill();
    exhaust_audit_space(d);
    auto ready = d.get("/readyz", "");
    EXPECT_EQ(ready.status, 503) << ready.body;
    EXPECT_FALSE(ready.json().at("checks").at("audit").at("ok").as_bool()) << ready.body;
    EXPECT_THAT(ready.body, HasSubstr("No space left on device"));

    auto approved = d.post("/v1/approvals/" + id + "/approve", "", "owner");
    EXPECT_EQ(approved.status, 503) << approved.body;
    EXPECT_EQ(approved.error_code(), "AUDIT_WRITE_FAILED") << approved.body;
    EXPECT_THAT(approved.body, HasSubstr("No space left on device"));

    audit.free_space();
    EXPECT_EQ(d.get("/readyz", "").status, 200) << "readiness recovers by itself once space returns";
    EXPECT_THAT(task_titles(d), ::testing::Not(HasSubstr("call the dentist"))) << "the unaudited call ran";
    auto shown = d.get("/v1/approvals/" + id, "owner");
    ASSERT_EQ(shown.status, 200) << shown.body;
    EXPECT_EQ(shown.json().at("state").as_string(), "failed") << shown.body;
    EXPECT_THAT(std::string(shown.json().at("reason").as_string()), HasSubstr("audit"));
}

TEST(ServeFaults, ACallWhileTheAuditLogCannotBeWrittenIsRefusedWithItsCause) {
    SKIP_UNLESS_ROOT();
    DaemonSetup setup;
    DaemonProcess d(setup);
    SmallDisk audit(d.home() / "audit", "256k");
    d.start();
    audit.fill();
    exhaust_audit_space(d);
    auto refused = d.post("/v1/skills/task_create/call", R"({"args":{"title":"water the plants"}})", "owner");
    EXPECT_EQ(refused.status, 503) << refused.body;
    EXPECT_EQ(refused.error_code(), "AUDIT_WRITE_FAILED") << refused.body;
    audit.free_space();
    EXPECT_THAT(task_titles(d), ::testing::Not(HasSubstr("water the plants")));
    auto after = d.post("/v1/skills/task_create/call", R"({"args":{"title":"water the plants"}})", "owner");
    EXPECT_EQ(after.status, 200) << after.body;
}

// Root passes every permission check, so here the daemon runs as `nobody`, as under a service
// account. A directory it loses the right to write (chmod 000 while it runs) makes it unready with
// the cause; a call then runs audited or is refused with its cause, never unaudited; it recovers by
// itself once the permissions return.
TEST(ServeFaults, LostPermissionsMakeTheDaemonUnreadyWithTheCauseAndItRecoversByItself) {
    SKIP_UNLESS_ROOT();
    DaemonSetup setup;
    setup.server_yaml = "  readiness_cache_ms: 0\n";
    setup.run_as_nobody = true;
    DaemonProcess d(setup);
    d.start();
    auto before = d.post("/v1/skills/task_create/call", R"({"args":{"title":"before"}})", "owner");
    ASSERT_EQ(before.status, 200) << before.body << d.log();
    ASSERT_EQ(d.get("/readyz", "").status, 200) << d.get("/readyz", "").body;

    std::vector<std::string> calls_run;
    for (const fs::path& dir : {d.home() / "audit", d.home()}) {
        SCOPED_TRACE(dir.string());
        fs::permissions(dir, fs::perms::none);
        auto ready = d.get("/readyz", "");
        EXPECT_EQ(ready.status, 503) << ready.body;
        EXPECT_THAT(ready.body, HasSubstr("Permission denied"));
        auto during = d.post("/v1/skills/task_create/call", R"({"args":{"title":"during"}})", "owner");
        if (during.status == 200 && during.json().at("ok").as_bool()) {
            // It ran (the audit day file was open already): its record must be there.
            calls_run.push_back(std::string(during.json().at("call_id").as_string()));
        } else {
            // Refused, by the host (503 with the cause) or by the plugin (its data is out of reach):
            // either way the reason is the lost permission, said to the client.
            EXPECT_THAT(during.body, HasSubstr("Permission denied"));
        }
        fs::permissions(dir, fs::perms::owner_all);
        auto recovered = d.get("/readyz", "");
        EXPECT_EQ(recovered.status, 200) << recovered.body;
    }
    auto after = d.post("/v1/skills/task_create/call", R"({"args":{"title":"after"}})", "owner");
    ASSERT_EQ(after.status, 200) << after.body;
    EXPECT_TRUE(after.json().at("ok").as_bool()) << after.body;
    ASSERT_EQ(d.stop(), 0);
    std::string audit;
    for (const auto& day : fs::directory_iterator(d.home() / "audit")) {
        std::ifstream in(day.path());
        audit.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    for (const auto& call : calls_run) EXPECT_THAT(audit, HasSubstr(call)) << "ran without an audit record";
}

TEST(ServeFaults, RunsOnAFullHomeAreRefusedOrKeptNeverAcknowledgedThenLost) {
    SKIP_UNLESS_ROOT();
    DaemonSetup setup;
    setup.server_yaml = "  readiness_cache_ms: 0\n  max_runs_per_user: 100\n";
    DaemonProcess d(setup);
    SmallDisk home(d.home(), "64m");
    d.start();
    home.fill();
    HttpResult ready;
    try {
        ready = d.get("/readyz", "");
    } catch (const std::exception& e) {
        FAIL() << e.what() << "\n" << d.log();
    }
    EXPECT_EQ(ready.status, 503) << ready.body;

    std::vector<std::string> acknowledged;
    int refused = 0;
    const std::string padding(5000, 'p');  // under operator.yaml max_goal_chars
    for (int i = 0; i < 20; ++i) {
        HttpResult started;
        try {
            started =
                d.post("/v1/runs", R"({"goal":"list my tasks )" + std::to_string(i) + " " + padding + R"("})", "owner");
        } catch (const std::exception& e) {
            FAIL() << "the daemon did not answer: " << e.what() << "\n" << d.log();
        }
        if (started.status == 202) {
            acknowledged.emplace_back(started.json().at("run_id").as_string());
        } else {
            ++refused;
            EXPECT_EQ(started.status, 503) << started.body;
            EXPECT_THAT(started.body, HasSubstr("full")) << "the cause reaches the client";
        }
    }
    EXPECT_GT(refused, 0) << "the full disk never refused a run: the test did not exercise the fault";
    home.free_space();
    for (const auto& id : acknowledged) {
        auto run = d.get("/v1/runs/" + id, "owner");
        EXPECT_EQ(run.status, 200) << "run " << id << " was acknowledged and then lost: " << run.body;
    }
}

// The home's file system turns read-only under the running daemon (an I/O error under
// errors=remount-ro). Until it is repaired: /readyz says so, and every write is refused with the
// cause — never answered as done, never a bare 500. After e2fsck and a restart, nothing
// acknowledged is lost, the owner still gets in, and the approval that could not be decided is
// still pending, not stuck half-way.
TEST(ServeFaults, AHomeTurnedReadOnlyRefusesWritesWithTheCauseAndLosesNothingAcknowledged) {
    SKIP_UNLESS_ROOT();
    DaemonProcess d(asking_before("task_delete"));
    std::string why;
    FailingDisk disk(d.home(), d.etc().parent_path() / "home.img", why);
    if (!why.empty()) {
        if (std::getenv("CI") != nullptr) FAIL() << why;
        GTEST_SKIP() << why;
    }
    d.start();
    auto kept = d.post("/v1/skills/task_create/call", R"({"args":{"title":"renew the passport"}})", "alice");
    ASSERT_EQ(kept.status, 200) << kept.body;
    auto queued = d.post("/v1/skills/task_delete/call", R"({"args":{"id":1}})", "alice");
    ASSERT_EQ(queued.status, 202) << queued.body;
    const std::string approval(queued.json().at("approval_id").as_string());

    disk.fail();
    auto ready = d.get("/readyz", "");
    EXPECT_EQ(ready.status, 503) << ready.body;
    EXPECT_THAT(ready.body, HasSubstr("Read-only file system"));

    // Each write the daemon is asked for is refused with the cause, or (had it been stored before
    // the fault) kept: never acknowledged and then lost, never a 500.
    auto call = d.post("/v1/skills/task_create/call", R"({"args":{"title":"during the fault"}})", "alice");
    EXPECT_EQ(call.status, 503) << call.body;
    EXPECT_THAT(call.body, HasSubstr("Read-only file system"));
    auto approved = d.post("/v1/approvals/" + approval + "/approve", "", "owner");
    EXPECT_EQ(approved.status, 503) << approved.body;
    EXPECT_THAT(approved.body, HasSubstr("Read-only file system"));
    auto run = d.post("/v1/runs", R"({"goal":"list my tasks"})", "alice");
    EXPECT_EQ(run.status, 503) << run.body << d.log();
    EXPECT_THAT(run.body, HasSubstr("Read-only file system"));
    auto read = d.post("/v1/skills/task_list/call", "{}", "alice");
    EXPECT_NE(read.status, 500) << read.body;
    EXPECT_NE(read.status, 200) << "a call ran without its audit record: " << read.body;

    EXPECT_GE(d.stop(), 0) << "the daemon did not stop by itself on a read-only home:\n" << d.log();
    disk.repair();
    d.start();
    EXPECT_EQ(d.get("/readyz", "").status, 200) << d.log();
    const std::string titles = task_titles(d);
    EXPECT_THAT(titles, HasSubstr("renew the passport")) << "an acknowledged task was lost";
    EXPECT_THAT(titles, ::testing::Not(HasSubstr("during the fault")));
    auto shown = d.get("/v1/approvals/" + approval, "owner");
    ASSERT_EQ(shown.status, 200) << shown.body;
    EXPECT_EQ(shown.json().at("state").as_string(), "pending") << shown.body;
    auto decided = d.post("/v1/approvals/" + approval + "/approve", "", "owner");
    EXPECT_EQ(decided.status, 200) << decided.body;
    EXPECT_THAT(task_titles(d), ::testing::Not(HasSubstr("renew the passport")));
}

TEST(ServeFaults, ADamagedOperatorYamlIsRefusedWithItsLocationNotACrash) {
    DaemonProcess d;
    const std::string valid = "max_steps: 8\nobservation:\n  mode: structured\n  max_chars: 4000\n";
    const std::vector<std::string> damaged = {
        valid.substr(0, 27),                               // cut mid-mapping
        "max_steps: 8\nobservation: {mode: [\n",           // garbled
        std::string("max_\x00\xff\xfesteps: \x01\n", 17),  // binary bytes
        "? [max_steps]\n: 8\n",                            // a key that is not a name
    };
    for (const auto& text : damaged) {
        std::ofstream(d.etc() / "operator.yaml", std::ios::binary | std::ios::trunc) << text;
        auto serve = d.cli({"serve", "--port-file", (d.home() / "port").string()}, 30000);
        EXPECT_EQ(serve.signal, 0) << "serve crashed on operator.yaml:\n" << text << "\n" << serve.err;
        EXPECT_NE(serve.exit_code, 0) << serve.err;
        EXPECT_THAT(serve.err, HasSubstr("OPERATOR_CONFIG_INVALID")) << text;
    }
}

TEST(ServeFaults, AnEmptiedOwnerTokenFileIsReissuedAndSaidSo) {
    DaemonProcess d;
    write_file(d.etc() / "users.yaml", "users:\n  - {id: boss, role: owner, trust: bounded_auto}\n");
    d.start();
    const auto file = d.home() / "owner.token";
    std::string lost;
    std::ifstream(file) >> lost;
    ASSERT_FALSE(lost.empty()) << d.log();
    EXPECT_EQ(d.stop(), 0);

    std::ofstream(file, std::ios::trunc).close();  // what a crash and fsck left behind
    d.start();
    std::string reissued;
    std::ifstream(file) >> reissued;
    ASSERT_FALSE(reissued.empty()) << "the owner is locked out:\n" << d.log();
    EXPECT_NE(reissued, lost);
    EXPECT_EQ(http_request(d.port(), RequestSpec{"GET", "/v1/whoami", "", reissued, {}}).status, 200);
    EXPECT_EQ(http_request(d.port(), RequestSpec{"GET", "/v1/whoami", "", lost, {}}).status, 401)
        << "the lost token is revoked";
    EXPECT_THAT(d.log(), HasSubstr("owner.token is missing or does not hold the owner's token"));
}

std::vector<fs::path> set_aside_dirs(const fs::path& home) {
    std::vector<fs::path> out;
    for (const auto& entry : fs::directory_iterator(home))
        if (entry.path().filename().string().rfind("damaged-", 0) == 0) out.push_back(entry.path());
    return out;
}

TEST(ServeFaults, AnEmptiedDatabaseStopsStartUpKeepsTheFileAndCanBeSetAside) {
    DaemonProcess d;
    d.start();
    ASSERT_EQ(d.post("/v1/skills/task_create/call", R"({"args":{"title":"keep me"}})", "owner").status, 200);
    EXPECT_EQ(d.stop(), 0);
    const fs::path db = d.home() / "skillhost.db";
    fs::resize_file(db, 0);

    auto serve = d.cli({"serve", "--port-file", (d.home() / "port").string()}, 30000);
    EXPECT_NE(serve.exit_code, 0) << "serve started over an empty database:\n" << serve.err;
    EXPECT_THAT(serve.err, HasSubstr("STORE_DAMAGED"));
    EXPECT_THAT(serve.err, HasSubstr("db check --set-aside"));
    ASSERT_TRUE(fs::exists(db));
    EXPECT_EQ(fs::file_size(db), 0u) << "the damaged file was replaced";

    auto check = d.cli({"db", "check"});
    EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
    EXPECT_THAT(check.err + check.out, HasSubstr("empty"));
    EXPECT_TRUE(set_aside_dirs(d.home()).empty()) << "db check moved files without --set-aside";

    auto aside = d.cli({"db", "check", "--set-aside"});
    EXPECT_EQ(aside.exit_code, 0) << aside.out << aside.err;
    const auto dirs = set_aside_dirs(d.home());
    ASSERT_EQ(dirs.size(), 1u);
    EXPECT_TRUE(fs::exists(dirs.front() / "skillhost.db"));
    d.start();  // a new database now
    EXPECT_EQ(d.get("/healthz", "").status, 200);
}

TEST(ServeFaults, AWalThatFailsItsChecksumStopsStartUpAndIsKept) {
    DaemonProcess d;
    d.start();
    for (int i = 0; i < 5; ++i)
        ASSERT_EQ(
            d.post("/v1/skills/task_create/call", R"({"args":{"title":"task )" + std::to_string(i) + R"("}})", "owner")
                .status,
            200);
    d.process().signal(SIGKILL);  // no checkpoint: the WAL keeps its frames
    d.process().wait(std::chrono::seconds(10));
    const fs::path wal = d.home() / "skillhost.db-wal";
    ASSERT_TRUE(fs::exists(wal));
    const auto size = fs::file_size(wal);
    ASSERT_GT(size, 32u + 3 * (24 + 4096)) << "the WAL holds too few frames for this test";
    {
        std::fstream f(wal, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(32 + 24 + 200);  // inside the first frame's page
        f.put('\x5a').put('\xa5').put('\x5a');
    }
    auto serve = d.cli({"serve", "--port-file", (d.home() / "port").string()}, 30000);
    EXPECT_NE(serve.exit_code, 0) << "serve started over a garbled WAL:\n" << serve.err;
    EXPECT_THAT(serve.err, HasSubstr("STORE_DAMAGED"));
    EXPECT_THAT(serve.err, HasSubstr("checksum"));
    ASSERT_TRUE(fs::exists(wal)) << "the WAL (the evidence) was deleted";
    EXPECT_EQ(fs::file_size(wal), size);
}

// POST as the owner with an Idempotency-Key.
HttpResult post_keyed(DaemonProcess& d, const std::string& target, const std::string& body, const std::string& key) {
    return http_request(d.port(),
                        RequestSpec{"POST", target, body, DaemonProcess::token("owner"), {{"Idempotency-Key", key}}});
}

// How many tasks titled `title` the owner has.
std::size_t tasks_titled(DaemonProcess& d, const std::string& title) {
    auto listed = d.post("/v1/skills/task_list/call", "{}", "owner");
    std::size_t count = 0;
    for (auto at = listed.body.find(title); at != std::string::npos; at = listed.body.find(title, at + 1)) ++count;
    return count;
}

// A client that retries after a timeout sends the same Idempotency-Key: it gets the first answer
// again and the effect happens once.
TEST(ServeFaults, ARetriedCallOrRunWithTheSameIdempotencyKeyActsOnce) {
    DaemonProcess d;
    d.start();
    const auto send = [&](const std::string& target, const std::string& body, const std::string& key) {
        return post_keyed(d, target, body, key);
    };
    const std::string create = R"({"args":{"title":"renew the passport"}})";
    auto first = send("/v1/skills/task_create/call", create, "retry-1");
    ASSERT_EQ(first.status, 200) << first.body;
    auto again = send("/v1/skills/task_create/call", create, "retry-1");
    EXPECT_EQ(again.status, 200) << again.body;
    EXPECT_EQ(again.body, first.body) << "a retry is answered with the first answer";
    EXPECT_EQ(again.headers["idempotent-replayed"], "true");
    EXPECT_EQ(tasks_titled(d, "renew the passport"), 1u);

    auto other = send("/v1/skills/task_create/call", R"({"args":{"title":"something else"}})", "retry-1");
    EXPECT_EQ(other.status, 422) << other.body;
    EXPECT_EQ(other.error_code(), "IDEMPOTENCY_KEY_REUSED");
    auto fresh = send("/v1/skills/task_create/call", create, "retry-2");
    EXPECT_EQ(fresh.status, 200) << "a new key is a new request: " << fresh.body;

    auto run = send("/v1/runs", R"({"goal":"list my tasks"})", "run-1");
    ASSERT_EQ(run.status, 202) << run.body;
    auto run_again = send("/v1/runs", R"({"goal":"list my tasks"})", "run-1");
    EXPECT_EQ(run_again.status, 202) << run_again.body;
    EXPECT_EQ(run_again.json().at("run_id"), run.json().at("run_id")) << "the retry started a second run";
    auto bad = send("/v1/runs", R"({"goal":"list my tasks"})", "no spaces allowed");
    EXPECT_EQ(bad.status, 400) << bad.body;
    EXPECT_EQ(bad.error_code(), "IDEMPOTENCY_KEY_INVALID");
}

// The first answers are kept in the database: a retry after the daemon was killed and restarted
// is answered with the first answer (one effect), and a key whose request was in flight when the
// daemon died is not run again: its outcome is unknown, and the answer says where to look.
TEST(ServeFaults, IdempotencyKeysOutliveAKillAnsweredOnesReplayAndOnesInFlightAreNotRunAgain) {
    DaemonProcess d;
    d.start();
    const auto send = [&](const std::string& target, const std::string& body, const std::string& key) {
        return post_keyed(d, target, body, key);
    };
    const std::string create = R"({"args":{"title":"file the tax return"}})";
    auto first = send("/v1/skills/task_create/call", create, "kill-1");
    ASSERT_EQ(first.status, 200) << first.body;

    const fs::path started = d.home() / "users" / "owner" / "plugins" / "echo" / "sleep-started";
    const std::string slow = R"({"args":{"ms":800,"started_file":")" + started.string() + R"("}})";
    auto in_flight = std::async(std::launch::async, [&] {
        try {
            return send("/v1/skills/sleep/call", slow, "kill-2");
        } catch (const std::exception&) {
            return HttpResult{};  // the daemon died under it
        }
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!fs::exists(started) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(fs::exists(started)) << d.log();
    d.process().signal(SIGKILL);
    d.process().wait(std::chrono::seconds(30));
    EXPECT_NE(in_flight.get().status, 200) << "the slow call was answered before the kill: the test missed its moment";

    d.start();
    auto again = send("/v1/skills/task_create/call", create, "kill-1");
    EXPECT_EQ(again.status, 200) << again.body;
    EXPECT_EQ(again.body, first.body) << "the restarted daemon answers a retry with the first answer";
    EXPECT_EQ(again.headers["idempotent-replayed"], "true");
    EXPECT_EQ(tasks_titled(d, "file the tax return"), 1u) << "the retry acted again";

    auto unknown = send("/v1/skills/sleep/call", slow, "kill-2");
    EXPECT_EQ(unknown.status, 409) << unknown.body;
    EXPECT_EQ(unknown.error_code(), "IDEMPOTENCY_OUTCOME_UNKNOWN") << unknown.body;
    EXPECT_THAT(unknown.body, HasSubstr("audit log"));
    EXPECT_THAT(unknown.body, HasSubstr("new Idempotency-Key"));
    auto reused = send("/v1/skills/sleep/call", R"({"args":{"ms":1}})", "kill-2");
    EXPECT_EQ(reused.error_code(), "IDEMPOTENCY_KEY_REUSED") << reused.body;
}

// A skill whose plugin failed to load is not "no such skill": the caller learns which plugin and why.
TEST(ServeFaults, CallingASkillWhosePluginFailedToLoadSaysWhy) {
    DaemonProcess d;
    std::ifstream in(d.plugins_dir() / "echo.yaml");
    std::string manifest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto replace_all = [&](const std::string& from, const std::string& to) {
        for (auto at = manifest.find(from); at != std::string::npos; at = manifest.find(from, at + to.size()))
            manifest.replace(at, from.size(), to);
    };
    replace_all("name: echo", "name: ghost");
    replace_all("library: libecho.so", "library: libghost.so");  // never built: it cannot load
    replace_all("  - id: ", "  - id: ghost_");
    write_file(d.plugins_dir() / "ghost.yaml", manifest);

    auto called = d.cli({"call", "ghost_echo", "--args", R"({"text":"hi"})", "--json"});
    EXPECT_NE(called.exit_code, 0);
    EXPECT_THAT(called.out + called.err, HasSubstr("PLUGIN_NOT_LOADED"));
    EXPECT_THAT(called.out + called.err, HasSubstr("plugin ghost, which failed to load"));
    EXPECT_THAT(called.out + called.err, HasSubstr("LIBRARY_NOT_FOUND"));

    d.start();
    auto http = d.post("/v1/skills/ghost_echo/call", R"({"args":{"text":"hi"}})", "owner");
    EXPECT_EQ(http.status, 503) << http.body;
    EXPECT_EQ(http.error_code(), "PLUGIN_NOT_LOADED") << http.body;
}

// A run still working when the shutdown's grace period ends is stopped and saved interrupted
// (resumable), not cancelled as if its user had asked.
TEST(ServeFaults, ARunStoppedByTheShutdownIsSavedInterruptedNotCancelled) {
    DaemonSetup setup;
    setup.server_yaml = "  shutdown_grace_ms: 100\n";
    setup.models_yaml = "models:\n  script: {backend: scripted, script: script.yaml}\nroles:\n  orchestrator: script\n";
    json::array script;
    for (int i = 0; i < 4; ++i) {
        json::object action{{"thought", "sleep"},
                            {"action", json::object{{"tool", "sleep"}, {"args", json::object{{"ms", 900}}}}}};
        script.push_back(json::object{{"role", "orchestrator"}, {"response", json::serialize(action)}});
    }
    setup.script_yaml = json::serialize(script);
    DaemonProcess d(setup);
    d.start();
    auto started = d.post("/v1/runs", R"({"goal":"Sleep four times"})", "alice");
    ASSERT_EQ(started.status, 202) << started.body;
    const std::string id(started.json().at("run_id").as_string());
    EXPECT_EQ(d.stop(), 0) << d.log();
    EXPECT_THAT(d.log(), HasSubstr("saved as interrupted"));

    d.start();
    auto run = d.get("/v1/runs/" + id, "alice");
    ASSERT_EQ(run.status, 200) << run.body;
    EXPECT_EQ(run.json().at("status").as_string(), "interrupted") << run.body;
    EXPECT_THAT(run.body, HasSubstr("runs resume " + id));
}

// Titles in the arguments of every decision that let task_create run, from the audit day files
// (a line that does not parse is counted: a kill must not leave records that swallow others).
std::set<std::string> audited_creations(const fs::path& audit_dir, int& unreadable) {
    std::set<std::string> titles;
    for (const auto& entry : fs::directory_iterator(audit_dir)) {
        std::ifstream in(entry.path());
        for (std::string line; std::getline(in, line);) {
            boost::system::error_code ec;
            auto record = json::parse(line, ec);
            if (ec || !record.is_object()) {
                ++unreadable;
                continue;
            }
            const auto& o = record.as_object();
            if (o.at("kind") != "decision" || o.at("skill") != "task_create" || o.at("outcome") != "allow") continue;
            titles.insert(std::string(o.at("arguments").at("title").as_string()));
        }
    }
    return titles;
}

// SIGKILL in the middle of bursts of calls, five times: no acknowledged task is lost, no task
// exists without the audited decision that let it run, and the audit log stays readable.
TEST(ServeFaults, KillsDuringCallBurstsLoseNothingAcknowledgedAndLeaveNothingUnaudited) {
    DaemonProcess d;
    std::set<std::string> acknowledged;
    for (int round = 0; round < 5; ++round) {
        d.start();
        const int kill_after = 3 + round * 4;
        std::promise<void> enough;
        auto burst = std::async(std::launch::async, [&, round] {
            std::set<std::string> mine;
            bool signalled = false;
            for (int i = 0; i < 40; ++i) {
                const std::string title = "burst " + std::to_string(round) + "." + std::to_string(i);
                try {
                    auto r = d.post("/v1/skills/task_create/call", R"({"args":{"title":")" + title + R"("}})", "owner");
                    if (r.status == 200) mine.insert(title);
                } catch (const std::exception&) {
                    break;  // the daemon is gone
                }
                if (static_cast<int>(mine.size()) == kill_after && !signalled) {
                    signalled = true;
                    enough.set_value();
                }
            }
            if (!signalled) enough.set_value();
            return mine;
        });
        enough.get_future().wait();
        d.process().signal(SIGKILL);
        d.process().wait(std::chrono::seconds(30));
        const auto mine = burst.get();
        acknowledged.insert(mine.begin(), mine.end());
    }
    d.start();
    auto listed = d.post("/v1/skills/task_list/call", R"({"args":{"limit":200}})", "owner");
    ASSERT_EQ(listed.status, 200) << listed.body;
    std::set<std::string> stored;
    const json::value answer = listed.json();
    ASSERT_TRUE(answer.at("result").is_object()) << listed.body;
    for (const auto& t : answer.at("result").at("tasks").as_array())
        stored.insert(std::string(t.at("title").as_string()));
    for (const auto& title : acknowledged) EXPECT_TRUE(stored.count(title)) << title << " was acknowledged, then lost";
    int unreadable = 0;
    const auto audited = audited_creations(d.home() / "audit", unreadable);
    for (const auto& title : stored)
        EXPECT_TRUE(audited.count(title)) << title << " was created without an audit record";
    EXPECT_EQ(unreadable, 0) << "a kill left a record that is not whole";
    EXPECT_GE(acknowledged.size(), 5u);
}

}  // namespace
}  // namespace skillhost::testing
