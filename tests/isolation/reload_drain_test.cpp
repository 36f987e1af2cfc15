// Hot reload of an isolated plugin drains its old runner: a call in flight when the library is
// replaced finishes on the old runner with the old version's answer, calls made after the reload
// run in a new runner of the new version, and the old runner exits once its last call is done.
// Real inotify (PluginWatcher), a real file replacement by rename, real runner processes.
#include "isolation_test_support.hpp"
#include "plugin/process_plugin.hpp"
#include "reload/watched_catalog.hpp"

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <functional>
#include <thread>

namespace skillhost::plugin::testing {
namespace {

using namespace std::chrono_literals;

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout = 20s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= deadline) return condition();
        std::this_thread::sleep_for(2ms);
    }
    return true;
}

// The process is gone and reaped (a zombie still answers kill(pid, 0)).
bool process_gone(pid_t pid) {
    return ::kill(pid, 0) != 0 && errno == ESRCH;
}

// Copy, then rename over the old file: what an installer does, so a running runner keeps its
// mapping of the old library while the directory now holds the new one.
void install(const std::filesystem::path& source, const std::filesystem::path& dir) {
    const auto temporary = dir / ("." + source.filename().string() + ".tmp");
    std::filesystem::copy_file(source, temporary, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::rename(temporary, dir / source.filename());
}

std::int64_t version_of(const RawOutcome& outcome) {
    if (outcome.written != RawOutcome::Written::result) return 0;
    return boost::json::parse(outcome.result_json).at("version").to_number<std::int64_t>();
}

class ReloadDrainTest : public IsolationTest {};

TEST_F(ReloadDrainTest, ACallInFlightFinishesOnTheOldRunnerAndLaterCallsGetTheNewVersion) {
    test::TempDir plugins("skillhost-drain-plugins");
    for (const auto& entry : std::filesystem::directory_iterator(test::fixture_dir("echo")))
        if (entry.is_regular_file()) install(entry.path(), plugins.path());
    reload::LiveCatalogOptions catalog_options;
    catalog_options.plugin_dirs = {plugins.path()};
    catalog_options.loader = options;
    reload::WatcherOptions watcher_options;
    watcher_options.debounce = 30ms;
    reload::WatchedCatalog watched(catalog_options, watcher_options);
    ASSERT_TRUE(watched.start().ok());

    // What the executor holds for the length of a call: the plugin of the snapshot it started in.
    std::shared_ptr<LoadedPlugin> old_plugin = watched.catalog().snapshot()->find("sleep")->plugin;
    auto* old_process = dynamic_cast<ProcessPlugin*>(old_plugin.get());
    ASSERT_NE(old_process, nullptr) << "echo must run in a runner in this test";
    ASSERT_EQ(version_of(old_plugin->invoke(context("version"), "{}")), 1);
    ASSERT_EQ(old_process->runner_pids().size(), 1u);
    const pid_t old_pid = old_process->runner_pids().front();

    // The runner's sandbox lets the skill write only in its data directory.
    const auto started = context("sleep").data_dir / "started";
    std::atomic<bool> finished{false};
    RawOutcome in_flight;
    std::jthread slow([&] {  // joined on an early return too
        const boost::json::object args{{"ms", 3000}, {"started_file", started.string()}};
        in_flight = old_plugin->invoke(context("sleep"), boost::json::serialize(args));
        finished.store(true);
    });
    ASSERT_TRUE(wait_until([&] { return std::filesystem::exists(started); }));

    // Library first, then its manifest (version 2.0.0), as an installer does.
    install(test::fixture_dir("echo_v2") / "libecho.so", plugins.path());
    install(test::fixture_manifest("echo_v2"), plugins.path());
    std::shared_ptr<LoadedPlugin> new_plugin;
    ASSERT_TRUE(wait_until([&] {
        new_plugin = watched.catalog().snapshot()->find("version")->plugin;
        return version_of(new_plugin->invoke(context("version"), "{}")) == 2;
    })) << "the new version never answered";
    // Reloaded in well under the 3 s the call in flight sleeps (a 60x margin): it is still running.
    EXPECT_FALSE(finished.load());

    auto* new_process = dynamic_cast<ProcessPlugin*>(new_plugin.get());
    ASSERT_NE(new_process, nullptr);
    ASSERT_EQ(new_process->runner_pids().size(), 1u);
    EXPECT_NE(new_process->runner_pids().front(), old_pid);
    // The old runner still serves the old version to a call that began in the old snapshot.
    EXPECT_FALSE(process_gone(old_pid));
    EXPECT_EQ(version_of(old_plugin->invoke(context("version"), "{}")), 1);

    slow.join();
    ASSERT_EQ(in_flight.written, RawOutcome::Written::result)
        << in_flight.error_code << ": " << in_flight.error_message;
    EXPECT_EQ(in_flight.result_json, R"({"slept_ms":3000})");

    // The last call on the old version is done: dropping it ends the old runner, not the new one.
    old_plugin.reset();
    EXPECT_TRUE(wait_until([&] { return process_gone(old_pid); })) << "old runner " << old_pid << " still alive";
    EXPECT_FALSE(process_gone(new_process->runner_pids().front()));
    EXPECT_EQ(version_of(new_plugin->invoke(context("version"), "{}")), 2);
    watched.stop();
}

}  // namespace
}  // namespace skillhost::plugin::testing
