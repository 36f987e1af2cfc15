// The watcher end to end: real inotify on a temporary plugin directory, real fixture libraries
// installed by copy-then-rename, waits with generous timeouts (never a fixed sleep as the check).
#include "exec/executor.hpp"
#include "reload/plugin_watcher.hpp"
#include "reload_test_support.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>

namespace skillhost::reload {
namespace {

using namespace std::chrono_literals;
using test::install_fixture;
using test::install_fixture_library;
using test::TempDir;
using test::wait_until;

class PluginWatcherTest : public ::testing::Test {
protected:
    void SetUp() override { std::filesystem::create_directories(plugins); }

    LiveCatalog& catalog() {
        if (!catalog_) {
            LiveCatalogOptions options;
            options.plugin_dirs = {plugins};
            options.loader.cache_dir = root / "cache";
            catalog_ = std::make_unique<LiveCatalog>(options);
        }
        return *catalog_;
    }
    PluginWatcher& start_watching(std::chrono::milliseconds debounce = 100ms) {
        WatcherOptions options;
        options.debounce = debounce;
        watcher_ = std::make_unique<PluginWatcher>(catalog(), options);
        const auto status = watcher_->start();
        EXPECT_TRUE(status.ok()) << status.error().message;
        return *watcher_;
    }
    bool has_skill(std::string_view id) { return catalog().snapshot()->find(id) != nullptr; }
    bool has_failure(std::string_view code) {
        for (const auto& failure : catalog().snapshot()->failures())
            if (failure.error.code == code) return true;
        return false;
    }

    TempDir root{"skillhost-watch"};
    std::filesystem::path plugins = root / "plugins";
    std::unique_ptr<LiveCatalog> catalog_;
    std::unique_ptr<PluginWatcher> watcher_;  // declared last: stopped before the catalog goes

    void TearDown() override {
        watcher_.reset();
        catalog_.reset();
    }
};

TEST_F(PluginWatcherTest, APluginInstalledByRenameBecomesCallable) {
    start_watching();
    EXPECT_FALSE(has_skill("echo"));
    test::ChangeLog log(catalog());

    const auto manifest = install_fixture("echo", plugins);
    ASSERT_TRUE(wait_until([&] { return has_skill("echo"); }));
    EXPECT_EQ(test::echo_build(catalog()), 1);
    EXPECT_EQ(test::call_skill(*catalog().snapshot(), "add", R"({"a":20,"b":22})").at("sum"), 42);
    // Library and manifest renamed in one go: one rebuild, which added the plugin.
    ASSERT_TRUE(wait_until([&] { return log.count_for(manifest) >= 1; }));
    const auto changes = log.changes();
    ASSERT_EQ(changes.size(), 1u);
    ASSERT_EQ(changes[0].added_plugins.size(), 1u);
    EXPECT_EQ(changes[0].added_plugins[0].name, "echo");
}

TEST_F(PluginWatcherTest, ACallInFlightDuringAnUpdateFinishesOnTheOldVersion) {
    const auto shutdown_marker = root / "shutdowns.txt";
    ::setenv("SKILLHOST_ECHO_SHUTDOWN_FILE", shutdown_marker.c_str(), 1);
    install_fixture("echo", plugins);
    start_watching();
    ASSERT_EQ(test::echo_build(catalog()), 1);

    // Calls go through the executor, each on the snapshot current when it starts (as a server does).
    exec::Executor executor;
    plugin::Call caller;
    auto call = [&](std::string_view skill, const boost::json::value& args) {
        exec::CallOptions options;
        options.users_dir = root / "users";
        options.timeout = 10s;  // the manifest's 1 s for `sleep` is shorter than this test's slow call
        return executor.call(*catalog().snapshot(), skill, args, caller, options);
    };

    std::atomic<bool> finished{false};
    auto slow_call = std::async(std::launch::async, [&] {
        auto result = call("sleep", boost::json::object{{"ms", 1500}});
        finished = true;
        return result;
    });
    // The slow call holds its snapshot once it has a third owner (the catalog, our copy here, the call).
    ASSERT_TRUE(wait_until([&] { return catalog().snapshot().use_count() > 2; }));

    install_fixture("echo_v2", plugins);  // a new version: library and manifest
    ASSERT_TRUE(wait_until([&] { return test::echo_build(catalog()) == 2; }, 30s));
    EXPECT_FALSE(finished) << "the update should be visible while the 1.5 s call is still running";
    const auto new_call = call("version", boost::json::object{});
    ASSERT_TRUE(new_call.ok) << new_call.error.message;
    EXPECT_EQ(new_call.output.at("version"), 2);
    EXPECT_EQ(test::read_file(shutdown_marker), "") << "version 1 must stay loaded while its call runs";

    const auto result = slow_call.get();
    ASSERT_TRUE(result.ok) << result.error.message;
    EXPECT_EQ(result.output.at("slept_ms"), 1500);
    // Its last reference gone, version 1 is shut down (and unloaded); version 2 keeps serving.
    EXPECT_TRUE(wait_until([&] { return test::read_file(shutdown_marker) == "echo 1 shutdown\n"; }))
        << test::read_file(shutdown_marker);
    EXPECT_EQ(test::echo_build(catalog()), 2);
    ::unsetenv("SKILLHOST_ECHO_SHUTDOWN_FILE");
}

TEST_F(PluginWatcherTest, DeletingAPluginTakesItsSkillsOut) {
    const auto manifest = install_fixture("echo", plugins);
    start_watching();
    ASSERT_TRUE(has_skill("echo"));
    std::filesystem::remove(manifest);
    std::filesystem::remove(plugins / "libecho.so");
    ASSERT_TRUE(wait_until([&] { return !has_skill("echo"); }));
    EXPECT_TRUE(catalog().snapshot()->entries().empty());
    EXPECT_TRUE(catalog().snapshot()->failures().empty());
}

TEST_F(PluginWatcherTest, ABrokenUpdateKeepsTheOldVersionServingAndSaysWhy) {
    install_fixture("echo", plugins);
    start_watching();
    ASSERT_EQ(test::echo_build(catalog()), 1);

    install_fixture_library("wrong_major", plugins, "libecho.so");
    ASSERT_TRUE(wait_until([&] { return has_failure(kReloadFailedKeepingPrevious); }));
    EXPECT_EQ(test::echo_build(catalog()), 1);
    const auto& failure = catalog().snapshot()->failures().at(0);
    EXPECT_EQ(failure.error.details.at("cause").at("code"), "ABI_INCOMPATIBLE");
    EXPECT_NE(failure.error.message.find("keeps serving"), std::string::npos);

    // Fixing it clears the failure.
    install_fixture("echo_v2", plugins);  // a new version: library and manifest
    ASSERT_TRUE(wait_until([&] { return test::echo_build(catalog()) == 2; }, 30s));
    EXPECT_TRUE(catalog().snapshot()->failures().empty());
}

TEST_F(PluginWatcherTest, AManifestOnlyChangeIsPickedUp) {
    const auto manifest = install_fixture("echo", plugins);
    start_watching();
    std::string text = test::read_file(manifest);
    const std::string old_description = "Does nothing and returns an empty object.";
    text.replace(text.find(old_description), old_description.size(), "Does nothing, described anew.");
    test::install_bytes(plugins, "echo.yaml", text);
    ASSERT_TRUE(wait_until([&] {
        const auto snapshot = catalog().snapshot();
        const auto* entry = snapshot->find("noop");
        return entry && entry->spec->description == "Does nothing, described anew.";
    }));
    EXPECT_EQ(test::echo_build(catalog()), 1);
}

TEST_F(PluginWatcherTest, ABurstOfRewritesCausesOneRebuild) {
    const auto manifest = install_fixture("echo", plugins);
    // A wide window so that 20 copies of a library (a few ms each) surely land inside it even on a
    // busy machine.
    const auto debounce = 3s;
    start_watching(debounce);
    test::ChangeLog log(catalog());

    const auto burst_start = std::chrono::steady_clock::now();
    for (int i = 0; i < 20; ++i) install_fixture(i % 2 == 0 ? "echo" : "echo_v2", plugins);
    const auto burst = std::chrono::steady_clock::now() - burst_start;
    ASSERT_LT(burst, debounce) << "the burst itself took longer than the debounce window";

    ASSERT_TRUE(wait_until([&] { return test::echo_build(catalog()) == 2; }, 30s));
    // Give a wrongly scheduled second rebuild the chance to show up before counting.
    std::this_thread::sleep_for(debounce * 2);
    EXPECT_EQ(log.count_for(manifest), 1u);
}

TEST_F(PluginWatcherTest, TwoHundredPluginsLoadAndOneMoreJoinsWithoutReloadingThem) {
    for (int i = 0; i < 200; ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "gen_%03d", i);
        test::install_generated_plugin(plugins, name);
    }
    start_watching();
    auto snapshot = catalog().snapshot();
    ASSERT_EQ(snapshot->plugins().size(), 200u);
    EXPECT_TRUE(snapshot->failures().empty()) << snapshot->failures().at(0).error.message;
    EXPECT_EQ(test::call_skill(*snapshot, "gen_137_ping").at("plugin"), "gen_137");
    const auto gen_000 = snapshot->find("gen_000_ping")->plugin;

    install_fixture("echo", plugins);
    ASSERT_TRUE(wait_until([&] { return has_skill("echo"); }));
    snapshot = catalog().snapshot();
    EXPECT_EQ(snapshot->plugins().size(), 201u);
    EXPECT_EQ(snapshot->find("gen_000_ping")->plugin, gen_000) << "an unchanged plugin was reloaded";
}

TEST_F(PluginWatcherTest, TheWatchedDirectoryRemovedAndRecreatedComesBack) {
    install_fixture("echo", plugins);
    start_watching();
    ASSERT_TRUE(has_skill("echo"));

    std::filesystem::remove_all(plugins);
    ASSERT_TRUE(wait_until([&] { return !has_skill("echo") && has_failure("DIR_NOT_FOUND"); }));

    std::filesystem::create_directories(plugins);
    install_fixture("echo", plugins);
    ASSERT_TRUE(wait_until([&] { return has_skill("echo") && !has_failure("DIR_NOT_FOUND"); }));

    // Moved away and back (the way `mv plugins plugins.old` then back behaves).
    std::filesystem::rename(plugins, root / "plugins.old");
    ASSERT_TRUE(wait_until([&] { return !has_skill("echo"); }));
    std::filesystem::rename(root / "plugins.old", plugins);
    ASSERT_TRUE(wait_until([&] { return has_skill("echo"); }));

    // And after all that the directory is still watched.
    install_fixture("echo_v2", plugins);  // a new version: library and manifest
    ASSERT_TRUE(wait_until([&] { return test::echo_build(catalog()) == 2; }, 30s));
}

TEST_F(PluginWatcherTest, AMissingDirectoryAndItsParentAreWaitedFor) {
    plugins = root / "later" / "plugins";  // neither exists yet
    start_watching();
    ASSERT_TRUE(has_failure("DIR_NOT_FOUND"));
    std::filesystem::create_directories(plugins);
    install_fixture("echo", plugins);
    ASSERT_TRUE(wait_until([&] { return has_skill("echo"); }));
}

TEST_F(PluginWatcherTest, TemporaryNamesAreIgnored) {
    start_watching(50ms);
    test::ChangeLog log(catalog());
    test::install_bytes(plugins, "zz.yaml", "name: zz\n");  // a broken manifest: proves events arrive
    ASSERT_TRUE(wait_until([&] { return log.changes().size() == 1; }));
    for (const char* name : {".hidden.yaml", "draft.yaml.tmp", "echo.yaml~", ".echo.yaml.swp", "#echo.yaml#"})
        test::write_file(plugins / name, "name: nothing\n");
    test::install_bytes(plugins, "zz.yaml", "name: zz\nversion: 2\n");
    ASSERT_TRUE(wait_until([&] { return log.changes().size() == 2; }));
    for (const auto& change : log.changes())
        for (const auto& unit : change.units) EXPECT_EQ(unit.filename(), "zz.yaml");
}

PluginWatcher* signal_target = nullptr;
void on_sighup(int) {
    signal_target->request_rescan();
}

TEST_F(PluginWatcherTest, ARescanRequestedFromASignalHandlerSeesUnwatchedChanges) {
    const auto manifest = install_fixture("echo", plugins);
    auto& watcher = start_watching();
    const auto loaded = catalog().snapshot()->find("echo")->plugin;

    // Changing only the library's mtime raises no event the watcher listens to (IN_ATTRIB)...
    const timespec times[2] = {{0, UTIME_OMIT}, {1'000'000'000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, (plugins / "libecho.so").c_str(), times, 0), 0);
    // ...but an explicit rescan (SIGHUP in the daemon) compares file identities and reloads.
    signal_target = &watcher;
    struct sigaction action {};
    action.sa_handler = &on_sighup;
    struct sigaction previous {};
    ASSERT_EQ(::sigaction(SIGHUP, &action, &previous), 0);
    ::raise(SIGHUP);
    ::sigaction(SIGHUP, &previous, nullptr);
    ASSERT_TRUE(wait_until([&] { return catalog().snapshot()->find("echo")->plugin != loaded; }));
    (void)manifest;
}

// When the inotify queue overflows, events are lost; the watcher must notice (IN_Q_OVERFLOW) and
// rescan everything. The watching thread is held inside a catalog update (subscribers run on it)
// while the directory gets more events than the kernel queues, then a plugin is installed whose
// events are therefore lost: only the overflow's rescan can find it.
TEST_F(PluginWatcherTest, AnOverflowedEventQueueLeadsToAFullRescan) {
    std::ostringstream captured;
    auto previous = spdlog::default_logger();
    spdlog::set_default_logger(
        std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured)));
    struct RestoreLogger {
        std::shared_ptr<spdlog::logger> logger;
        ~RestoreLogger() { spdlog::set_default_logger(logger); }
    } restore{previous};

    start_watching();
    // Shared with the watching thread, and opened however this test ends.
    struct Gate {
        std::mutex mutex;
        std::condition_variable changed;
        bool armed = true, inside = false, open = false;
        void let_go() {
            {
                std::lock_guard lock(mutex);
                open = true;
            }
            changed.notify_all();
        }
    };
    auto gate = std::make_shared<Gate>();
    struct OpenAtExit {
        std::shared_ptr<Gate> gate;
        ~OpenAtExit() { gate->let_go(); }
    } open_at_exit{gate};
    auto subscription = catalog().subscribe([gate](const CatalogUpdate&) {
        std::unique_lock lock(gate->mutex);
        if (!gate->armed) return;
        gate->armed = false;
        gate->inside = true;
        gate->changed.notify_all();
        gate->changed.wait(lock, [&] { return gate->open; });  // the watching thread waits here
    });
    install_fixture("plain_c", plugins);
    {
        std::unique_lock lock(gate->mutex);
        ASSERT_TRUE(gate->changed.wait_for(lock, 30s, [&] { return gate->inside; })) << "the watcher never rebuilt";
    }

    std::size_t queue_limit = 16384;
    std::ifstream("/proc/sys/fs/inotify/max_queued_events") >> queue_limit;
    const auto junk = plugins / "junk.tmp";
    for (std::size_t i = 0; i < queue_limit; ++i) {  // at least two events each: created, deleted
        const int fd = ::open(junk.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        ASSERT_GE(fd, 0);
        ::close(fd);
        ::unlink(junk.c_str());
    }
    install_fixture("echo", plugins);  // its events find the queue full
    gate->let_go();

    EXPECT_TRUE(wait_until([&] { return has_skill("add"); }, 60s)) << "the lost installation was never picked up";
    EXPECT_TRUE(has_skill("upper"));
    watcher_.reset();  // flushes nothing more into `captured` after this
    EXPECT_NE(captured.str().find("inotify queue overflowed"), std::string::npos) << captured.str();
}

TEST_F(PluginWatcherTest, StopIsPromptAndStartTwiceIsRefused) {
    auto& watcher = start_watching(10s);  // a pending rebuild 10 s away must not delay stop()
    install_fixture("echo", plugins);
    const auto before = std::chrono::steady_clock::now();
    watcher.stop();
    EXPECT_LT(std::chrono::steady_clock::now() - before, 2s);
    EXPECT_FALSE(watcher.running());
    const auto again = watcher.start();
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, "WATCHER_ALREADY_STARTED");
}

}  // namespace
}  // namespace skillhost::reload
