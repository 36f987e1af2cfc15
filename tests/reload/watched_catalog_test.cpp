// WatchedCatalog: what `skillhost watch` and the daemon run, built from a host configuration, and
// the one-line / JSON change summaries they print.
#include "reload/watched_catalog.hpp"
#include "reload_test_support.hpp"

#include <gtest/gtest.h>

namespace skillhost::reload {
namespace {

using namespace std::chrono_literals;

TEST(WatchedCatalog, FollowsTheConfiguredDirectoriesAndDescribesEachChange) {
    test::TempDir root("skillhost-watched");
    config::HostConfig config;
    config.home = root / "home";
    config.plugin_dirs = {root / "plugins"};
    config.reload_debounce = 30ms;
    std::filesystem::create_directories(config.plugin_dirs[0]);
    test::install_fixture("wrong_major", config.plugin_dirs[0]);

    const auto options = live_catalog_options(config);
    EXPECT_EQ(options.loader.cache_dir, config.plugin_cache_dir());
    EXPECT_EQ(watcher_options(config).debounce, 30ms);

    WatchedCatalog watched(options, watcher_options(config));
    std::mutex mutex;
    std::vector<std::string> lines;
    std::vector<boost::json::object> records;
    auto subscription = watched.catalog().subscribe([&](const CatalogUpdate& update) {
        std::lock_guard lock(mutex);
        lines.push_back(format_change_line(update.change));
        records.push_back(change_to_json(update.change));
    });
    ASSERT_TRUE(watched.start().ok());
    auto line_count = [&] {
        std::lock_guard lock(mutex);
        return lines.size();
    };
    ASSERT_EQ(line_count(), 1u);  // the initial load, seen as a change
    EXPECT_NE(lines[0].find("failed: wrong_major.yaml ABI_INCOMPATIBLE"), std::string::npos) << lines[0];

    test::install_fixture("echo", config.plugin_dirs[0]);
    ASSERT_TRUE(test::wait_until([&] { return line_count() == 2; }));
    std::filesystem::remove(config.plugin_dirs[0] / "echo.yaml");
    ASSERT_TRUE(test::wait_until([&] { return line_count() == 3; }));
    watched.stop();

    std::lock_guard lock(mutex);
    EXPECT_EQ(lines[1].rfind("catalog v1 -> v2: added plugin echo 1.0.0; skills added: add, ask, echo", 0), 0u)
        << lines[1];
    EXPECT_EQ(lines[2].rfind("catalog v2 -> v3: removed plugin echo 1.0.0; skills removed:", 0), 0u) << lines[2];
    EXPECT_EQ(records[1].at("plugins").at("added").at(0).at("name"), "echo");
    EXPECT_EQ(records[1].at("skills").at("added").as_array().size(), 11u);
    EXPECT_EQ(records[2].at("skills").at("removed").as_array().size(), 11u);
    EXPECT_EQ(records[0].at("failures").at("new").at(0).at("error").at("code"), "ABI_INCOMPATIBLE");
    EXPECT_EQ(records[2].at("trigger"), "unit");
}

}  // namespace
}  // namespace skillhost::reload
