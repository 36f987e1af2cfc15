// `skillhost watch` as an author uses it: running in one terminal while plugins are installed,
// replaced with a broken build, and removed in another.
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using skillhost::testing::ChildProcess;
using skillhost::testing::TempDir;
using skillhost::testing::write_file;

const fs::path kFixtures = SKILLHOST_TEST_FIXTURES_BINARY_DIR;

// Installs like an installer should: copy under a temporary name in the directory, then rename.
void install(const fs::path& from, const fs::path& dir) {
    fs::path tmp = dir / ("." + from.filename().string() + ".tmp");
    fs::copy_file(from, tmp, fs::copy_options::overwrite_existing);
    fs::rename(tmp, dir / from.filename());
}

// `skillhost watch --json` over DIR/plugins (created here) alone, without the built-in plugins.
std::unique_ptr<ChildProcess> start_watch(const TempDir& dir) {
    fs::create_directories(dir / "plugins");
    write_file(dir / "skillhost.yaml",
               "include_builtin_plugins: false\nplugin_dirs: [plugins]\nreload_debounce_ms: 50\n");
    return std::make_unique<ChildProcess>(std::vector<std::string>{SKILLHOST_BINARY, "watch", "--json", "--config",
                                                                   (dir / "skillhost.yaml").string(), "--home",
                                                                   (dir / "home").string()});
}

TEST(CliWatch, PrintsInstallsBrokenUpdatesAndRemovals) {
    TempDir dir{"skillhost-watch"};
    const fs::path plugins = dir / "plugins";
    auto started = start_watch(dir);
    ChildProcess& watch = *started;

    // The library first, then its manifest: the unit is complete when the manifest arrives.
    install(kFixtures / "plain_c" / "libplain_c.so", plugins);
    install(kFixtures / "plain_c" / "plain_c.yaml", plugins);
    auto added = watch.wait_for_line("\"upper\"", 15s);
    ASSERT_TRUE(added) << "no change line for the installed plugin; stderr:\n" << watch.stderr_text();

    // A broken build replaces the library: the old version keeps serving and the change says why.
    {
        std::ofstream garbage(plugins / ".broken.tmp", std::ios::binary);
        garbage << "this is not an ELF file";
    }
    fs::rename(plugins / ".broken.tmp", plugins / "libplain_c.so");
    auto broken = watch.wait_for_line("RELOAD_FAILED_KEEPING_PREVIOUS", 15s);
    ASSERT_TRUE(broken) << watch.stderr_text();

    fs::remove(plugins / "plain_c.yaml");
    fs::remove(plugins / "libplain_c.so");
    auto removed = watch.wait_for_line("removed", 15s);
    ASSERT_TRUE(removed) << watch.stderr_text();
    EXPECT_NE(removed->find("upper"), std::string::npos) << *removed;

    watch.signal(SIGINT);
    EXPECT_EQ(watch.wait(10s), 0) << watch.stderr_text();
}

// Every stdout line of `watch` up to and including the first that contains `needle` (empty when
// none arrives in time).
std::vector<std::string> lines_until(ChildProcess& watch, const std::string& needle) {
    std::vector<std::string> lines;
    while (auto line = watch.read_line(15s)) {
        lines.push_back(*line);
        if (line->find(needle) != std::string::npos) return lines;
    }
    return {};
}

TEST(CliWatch, ReportsOnlyRealChangesAnIdenticalManifestIsNoUpdateANewVersionIsOne) {
    TempDir dir{"skillhost-watch-real"};
    const fs::path plugins = dir / "plugins";
    auto started = start_watch(dir);
    ChildProcess& watch = *started;
    install(kFixtures / "echo" / "libecho.so", plugins);
    install(kFixtures / "echo" / "echo.yaml", plugins);
    ASSERT_FALSE(lines_until(watch, "\"added\":[{\"name\":\"echo\"").empty()) << watch.stderr_text();

    // The same manifest written again (a new inode, the same bytes), then the same library: the
    // watcher reloads, finds nothing different and says nothing. Another plugin installed next is
    // the event to wait for: whatever the watcher reported until then (in its own line or folded
    // into that one) shows whether it took the identical files for an update.
    std::vector<std::string> lines;
    install(kFixtures / "echo" / "echo.yaml", plugins);
    install(kFixtures / "echo" / "libecho.so", plugins);
    install(kFixtures / "plain_c" / "libplain_c.so", plugins);
    install(kFixtures / "plain_c" / "plain_c.yaml", plugins);
    for (auto& line : lines_until(watch, "\"added\":[{\"name\":\"plain_c\"")) lines.push_back(std::move(line));
    ASSERT_FALSE(lines.empty()) << watch.stderr_text();
    // Version 2: the library, then its manifest. Whatever the watcher makes of the moment in
    // between, one line reports the plugin updated from 1.0.0 to 2.0.0.
    install(kFixtures / "echo_v2" / "libecho.so", plugins);
    install(kFixtures / "echo_v2" / "echo.yaml", plugins);
    for (auto& line : lines_until(watch, "\"new_version\":\"2.0.0\"")) lines.push_back(std::move(line));
    // Removing it is the last change: every line before it is what the steps above reported.
    fs::remove(plugins / "echo.yaml");
    for (auto& line : lines_until(watch, "\"removed\":[{\"name\":\"echo\"")) lines.push_back(std::move(line));
    std::string all;
    std::vector<std::string> updates;
    for (const auto& line : lines) {
        all += line + "\n";
        if (line.find("\"new_version\":\"") != std::string::npos) updates.push_back(line);
    }
    ASSERT_EQ(updates.size(), 1u) << "every line:\n" << all << watch.stderr_text();
    EXPECT_NE(updates[0].find("\"old_version\":\"1.0.0\",\"new_version\":\"2.0.0\""), std::string::npos) << all;
    EXPECT_NE(all.find("\"removed\":[{\"name\":\"echo\""), std::string::npos) << all;

    watch.signal(SIGINT);
    EXPECT_EQ(watch.wait(10s), 0) << watch.stderr_text();
}

}  // namespace
