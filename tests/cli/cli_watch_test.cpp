// `skillhost watch` as an author uses it: running in one terminal while plugins are installed,
// replaced with a broken build, and removed in another.
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

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

TEST(CliWatch, PrintsInstallsBrokenUpdatesAndRemovals) {
    TempDir dir{"skillhost-watch"};
    fs::path plugins = dir / "plugins";
    fs::create_directories(plugins);
    write_file(dir / "skillhost.yaml",
               "include_builtin_plugins: false\nplugin_dirs: [plugins]\nreload_debounce_ms: 50\n");
    ChildProcess watch({SKILLHOST_BINARY, "watch", "--json", "--config", (dir / "skillhost.yaml").string(), "--home",
                        (dir / "home").string()});

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

}  // namespace
