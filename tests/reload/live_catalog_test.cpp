// LiveCatalog without a watcher: rebuilds on demand, reuse of unchanged plugins, keeping the
// previous version when a new one is broken, change summaries and subscriptions.
#include "reload/live_catalog.hpp"
#include "reload_test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include <boost/json/serialize.hpp>

#include <atomic>

namespace skillhost::reload {
namespace {

using test::install_fixture;
using test::install_fixture_library;
using test::TempDir;

class LiveCatalogTest : public ::testing::Test {
protected:
    LiveCatalogOptions options() {
        LiveCatalogOptions options;
        options.plugin_dirs = {plugins};
        options.loader.cache_dir = root / "cache";
        options.on_report = [this](const ReloadReport& report) {
            std::lock_guard lock(reports_mutex);
            reports.push_back(report);
        };
        return options;
    }
    std::shared_ptr<plugin::LoadedPlugin> plugin_named(const LiveCatalog& catalog, std::string_view name) {
        for (const auto& p : catalog.snapshot()->plugins())
            if (p->manifest().name == name) return p;
        return nullptr;
    }

    TempDir root{"skillhost-reload"};
    std::filesystem::path plugins = root / "plugins";
    std::mutex reports_mutex;
    std::vector<ReloadReport> reports;

    void SetUp() override { std::filesystem::create_directories(plugins); }
};

TEST_F(LiveCatalogTest, RescanLoadsEveryPluginAndListsTheOnesThatFailed) {
    install_fixture("echo", plugins);
    install_fixture("wrong_major", plugins);
    LiveCatalog catalog(options());
    EXPECT_EQ(catalog.version(), 0u);
    EXPECT_TRUE(catalog.snapshot()->entries().empty());

    const auto report = catalog.rescan();
    const auto snapshot = catalog.snapshot();
    EXPECT_EQ(snapshot->version(), 1u);
    EXPECT_TRUE(report.changed());
    ASSERT_NE(snapshot->find("version"), nullptr);
    EXPECT_EQ(test::echo_build(catalog), 1);
    ASSERT_EQ(snapshot->failures().size(), 1u);
    EXPECT_EQ(snapshot->failures()[0].manifest_file, plugins / "wrong_major.yaml");
    EXPECT_EQ(snapshot->failures()[0].error.code, "ABI_INCOMPATIBLE");  // nothing was serving: not wrapped
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].units.size(), 2u);
}

TEST_F(LiveCatalogTest, UnchangedUnitsAreNotReloaded) {
    const auto manifest = install_fixture("echo", plugins);
    LiveCatalog catalog(options());
    catalog.rescan();
    const auto loaded = plugin_named(catalog, "echo");
    ASSERT_NE(loaded, nullptr);

    // Same bytes rewritten (new mtime, new inode): still the same plugin, no new catalog version.
    test::install_bytes(plugins, "echo.yaml", test::read_file(manifest));
    const auto unit_report = catalog.reload_unit(manifest);
    ASSERT_TRUE(unit_report.ok());
    EXPECT_FALSE(unit_report->changed());
    EXPECT_TRUE(unit_report->units.empty());
    const auto rescan_report = catalog.rescan();
    EXPECT_FALSE(rescan_report.changed());
    EXPECT_EQ(catalog.version(), 1u);
    EXPECT_EQ(plugin_named(catalog, "echo"), loaded);
}

TEST_F(LiveCatalogTest, ReloadingOneUnitKeepsTheOtherPluginsAsTheyAre) {
    const auto echo_manifest = install_fixture("echo", plugins);
    install_fixture("plain_c", plugins);
    LiveCatalog catalog(options());
    catalog.rescan();
    const auto plain_c = plugin_named(catalog, "plain_c");
    ASSERT_NE(plain_c, nullptr);
    test::ChangeLog log(catalog);

    install_fixture("echo_v2", plugins);  // a new version: library and manifest
    const auto report = catalog.reload_unit(echo_manifest);
    ASSERT_TRUE(report.ok());
    ASSERT_EQ(report->units.size(), 1u);
    EXPECT_EQ(report->units[0].outcome, UnitOutcome::updated);
    EXPECT_EQ(report->units[0].previous_version, "1.0.0");
    EXPECT_EQ(report->units[0].version, "2.0.0");
    EXPECT_EQ(test::echo_build(catalog), 2);
    EXPECT_EQ(plugin_named(catalog, "plain_c"), plain_c);

    const auto changes = log.changes();
    ASSERT_EQ(changes.size(), 1u);
    const auto& change = changes[0];
    EXPECT_EQ(change.old_version, 1u);
    EXPECT_EQ(change.new_version, 2u);
    EXPECT_EQ(change.trigger, "unit");
    ASSERT_EQ(change.updated_plugins.size(), 1u);
    EXPECT_EQ(change.updated_plugins[0].name, "echo");
    EXPECT_TRUE(change.added_plugins.empty());
    EXPECT_TRUE(change.removed_plugins.empty());
    EXPECT_NE(std::find(change.updated_skills.begin(), change.updated_skills.end(), "version"),
              change.updated_skills.end());
    EXPECT_EQ(change.units, std::vector<std::filesystem::path>{echo_manifest});
    EXPECT_EQ(format_change_line(change).rfind("catalog v1 -> v2: updated plugin echo 1.0.0 -> 2.0.0", 0), 0u)
        << format_change_line(change);
    const auto json = change_to_json(change);
    EXPECT_EQ(json.at("plugins").at("updated").at(0).at("new_version"), "2.0.0");
    EXPECT_EQ(json.at("new_version"), 2);
}

TEST_F(LiveCatalogTest, ABrokenNewVersionLeavesThePreviousOneServingAndSaysWhy) {
    const auto manifest = install_fixture("echo", plugins);
    LiveCatalog catalog(options());
    catalog.rescan();
    const auto v1 = plugin_named(catalog, "echo");

    install_fixture_library("wrong_major", plugins, "libecho.so");
    const auto report = catalog.reload_unit(manifest);
    ASSERT_TRUE(report.ok());
    ASSERT_EQ(report->units.size(), 1u);
    EXPECT_EQ(report->units[0].outcome, UnitOutcome::failed_keeping_previous);
    EXPECT_EQ(plugin_named(catalog, "echo"), v1);
    EXPECT_EQ(test::echo_build(catalog), 1);

    const auto snapshot = catalog.snapshot();
    ASSERT_EQ(snapshot->failures().size(), 1u);
    const auto& failure = snapshot->failures()[0];
    EXPECT_EQ(failure.manifest_file, manifest);
    EXPECT_EQ(failure.plugin_name, "echo");
    EXPECT_EQ(failure.error.code, kReloadFailedKeepingPrevious);
    EXPECT_NE(failure.error.message.find("version 1.0.0 keeps serving"), std::string::npos) << failure.error.message;
    EXPECT_EQ(failure.error.details.at("cause").at("code"), "ABI_INCOMPATIBLE");
    EXPECT_EQ(failure.error.details.at("serving_version"), "1.0.0");

    // The audit record says the same.
    ASSERT_EQ(reports.size(), 2u);
    const auto audit = reports[1].to_json();
    EXPECT_EQ(audit.at("event"), "catalog_reload");
    EXPECT_EQ(audit.at("units").at(0).at("outcome"), "failed_keeping_previous");
    EXPECT_EQ(audit.at("units").at(0).at("error").at("details").at("cause").at("code"), "ABI_INCOMPATIBLE");

    // The same broken files looked at again: nothing new to report.
    EXPECT_FALSE(catalog.reload_unit(manifest)->changed());

    // A garbage file is no better; then a good build clears the failure.
    test::install_bytes(plugins, "libecho.so", "this is not a shared library\n");
    catalog.reload_unit(manifest);
    ASSERT_EQ(catalog.snapshot()->failures().size(), 1u);
    EXPECT_EQ(catalog.snapshot()->failures()[0].error.details.at("cause").at("code"), "LIBRARY_LOAD_FAILED");
    EXPECT_EQ(test::echo_build(catalog), 1);

    install_fixture("echo_v2", plugins);  // a new version: library and manifest
    catalog.reload_unit(manifest);
    EXPECT_TRUE(catalog.snapshot()->failures().empty());
    EXPECT_EQ(test::echo_build(catalog), 2);
}

TEST_F(LiveCatalogTest, AnInvalidManifestUpdateAlsoKeepsThePreviousVersion) {
    const auto manifest = install_fixture("echo", plugins);
    LiveCatalog catalog(options());
    catalog.rescan();
    test::install_bytes(plugins, "echo.yaml", "name: echo\nversion: [this is not\n");
    catalog.reload_unit(manifest);
    EXPECT_EQ(test::echo_build(catalog), 1);
    ASSERT_EQ(catalog.snapshot()->failures().size(), 1u);
    EXPECT_EQ(catalog.snapshot()->failures()[0].error.code, kReloadFailedKeepingPrevious);
    EXPECT_EQ(catalog.snapshot()->failures()[0].error.details.at("cause").at("code"), "MANIFEST_INVALID");
}

TEST_F(LiveCatalogTest, AManifestOnlyChangeIsPickedUp) {
    const auto manifest = install_fixture("echo", plugins);
    LiveCatalog catalog(options());
    catalog.rescan();
    std::string text = test::read_file(manifest);
    const std::string old_description = "Does nothing and returns an empty object.";
    ASSERT_NE(text.find(old_description), std::string::npos);
    text.replace(text.find(old_description), old_description.size(), "Does nothing, now documented better.");
    test::install_bytes(plugins, "echo.yaml", text);

    const auto report = catalog.reload_unit(manifest);
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(report->changed());
    EXPECT_EQ(catalog.snapshot()->find("noop")->spec->description, "Does nothing, now documented better.");
}

TEST_F(LiveCatalogTest, OnlyRealChangesAreReportedAsUpdates) {
    const auto manifest = install_fixture("echo", plugins);
    LiveCatalog catalog(options());
    catalog.rescan();
    test::ChangeLog log(catalog);
    const std::string original = test::read_file(manifest);

    // One skill's description changes: that skill is updated, its siblings are not, and the
    // plugin's unchanged version is not shown as "1.0.0 -> 1.0.0".
    std::string text = original;
    const std::string old_description = "Does nothing and returns an empty object.";
    ASSERT_NE(text.find(old_description), std::string::npos);
    text.replace(text.find(old_description), old_description.size(), "Does nothing, documented better.");
    test::install_bytes(plugins, "echo.yaml", text);
    ASSERT_TRUE(catalog.reload_unit(manifest).ok());
    // A comment only: reloaded, but nothing a client could see changed.
    test::install_bytes(plugins, "echo.yaml", text + "# a comment\n");
    ASSERT_TRUE(catalog.reload_unit(manifest).ok());
    // The same library bytes installed again (a new file): no change either.
    install_fixture_library("echo", plugins, "libecho.so");
    ASSERT_TRUE(catalog.reload_unit(manifest).ok());
    // Other library bytes: every skill of the plugin now runs other code.
    install_fixture("echo_v2", plugins);  // a new version: library and manifest
    ASSERT_TRUE(catalog.reload_unit(manifest).ok());

    const auto changes = log.changes();
    ASSERT_EQ(changes.size(), 4u);
    EXPECT_EQ(changes[0].updated_skills, std::vector<std::string>{"noop"});
    ASSERT_EQ(changes[0].updated_plugins.size(), 1u);
    EXPECT_EQ(format_change_line(changes[0]), "catalog v1 -> v2: updated plugin echo 1.0.0; skills updated: noop");
    EXPECT_TRUE(changes[1].empty()) << format_change_line(changes[1]);
    EXPECT_TRUE(changes[2].empty()) << format_change_line(changes[2]);
    EXPECT_EQ(changes[2].units, std::vector<std::filesystem::path>{manifest}) << "the unit was still rebuilt";
    EXPECT_GT(changes[3].updated_skills.size(), 1u);
    EXPECT_EQ(format_change_line(changes[3]).rfind("catalog v4 -> v5: updated plugin echo 1.0.0 -> 2.0.0", 0), 0u)
        << format_change_line(changes[3]);
}

TEST_F(LiveCatalogTest, ARemovedManifestTakesItsSkillsOutWhileHeldCallsStillWork) {
    const auto manifest = install_fixture("echo", plugins);
    LiveCatalog catalog(options());
    catalog.rescan();
    auto held = catalog.snapshot();  // like an in-flight call

    std::filesystem::remove(manifest);
    std::filesystem::remove(plugins / "libecho.so");
    const auto report = catalog.reload_unit(manifest);
    ASSERT_TRUE(report.ok());
    ASSERT_EQ(report->units.size(), 1u);
    EXPECT_EQ(report->units[0].outcome, UnitOutcome::removed);
    EXPECT_EQ(catalog.snapshot()->find("echo"), nullptr);
    EXPECT_TRUE(catalog.snapshot()->failures().empty());
    EXPECT_EQ(test::call_skill(*held, "add", R"({"a":2,"b":3})").at("sum"), 5);

    // The library stays mapped exactly as long as the held snapshot keeps the plugin.
    const auto mapped_file = held->find("add")->plugin->loaded_from();
    const auto mappings = [&mapped_file] {
        std::ifstream maps("/proc/self/maps");
        int count = 0;
        for (std::string line; std::getline(maps, line);) count += line.find(mapped_file.string()) != std::string::npos;
        return count;
    };
    EXPECT_GT(mappings(), 0);
    held.reset();
    EXPECT_EQ(mappings(), 0) << "the removed plugin's library is still mapped";
}

TEST_F(LiveCatalogTest, AManifestOutsideThePluginDirectoriesIsRefused) {
    LiveCatalog catalog(options());
    const auto report = catalog.reload_unit(root / "elsewhere" / "echo.yaml");
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.error().code, "UNIT_OUTSIDE_PLUGIN_DIRS");
    EXPECT_EQ(catalog.reload_unit(plugins / "libecho.so").error().code, "UNIT_OUTSIDE_PLUGIN_DIRS");
}

TEST_F(LiveCatalogTest, AMissingDirectoryIsReportedUntilItExists) {
    const auto missing = root / "not-yet";
    auto opts = options();
    opts.plugin_dirs.push_back(missing);
    LiveCatalog catalog(opts);
    catalog.rescan();
    ASSERT_EQ(catalog.snapshot()->failures().size(), 1u);
    EXPECT_EQ(catalog.snapshot()->failures()[0].error.code, "DIR_NOT_FOUND");
    EXPECT_EQ(catalog.snapshot()->failures()[0].manifest_file, missing);

    std::filesystem::create_directories(missing);
    install_fixture("echo", missing);
    catalog.rescan();
    EXPECT_TRUE(catalog.snapshot()->failures().empty());
    EXPECT_EQ(test::echo_build(catalog), 1);
}

TEST_F(LiveCatalogTest, TheSamePluginNameTwiceLoadsOnlyTheFirst) {
    install_fixture("echo", plugins);
    test::install_bytes(plugins, "zz_echo_again.yaml", test::read_file(plugins / "echo.yaml"));
    LiveCatalog catalog(options());
    catalog.rescan();
    const auto snapshot = catalog.snapshot();
    EXPECT_EQ(snapshot->plugins().size(), 1u);
    ASSERT_EQ(snapshot->failures().size(), 1u);
    EXPECT_EQ(snapshot->failures()[0].error.code, "DUPLICATE_PLUGIN");
    EXPECT_EQ(snapshot->failures()[0].manifest_file, plugins / "zz_echo_again.yaml");

    // When the first goes away the second takes over without being reloaded.
    std::filesystem::remove(plugins / "echo.yaml");
    catalog.rescan();
    EXPECT_TRUE(catalog.snapshot()->failures().empty());
    ASSERT_EQ(catalog.snapshot()->plugins().size(), 1u);
    EXPECT_EQ(catalog.snapshot()->plugins()[0]->manifest().file, plugins / "zz_echo_again.yaml");
}

TEST_F(LiveCatalogTest, SubscribersSeeEveryChangeInOrderUntilUnsubscribed) {
    install_fixture("echo", plugins);
    LiveCatalog catalog(options());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;
    std::atomic<bool> snapshot_matched{true};
    auto subscription = catalog.subscribe([&](const CatalogUpdate& update) {
        seen.emplace_back(update.old_snapshot->version(), update.new_snapshot->version());
        // Called after the swap and outside the locks: the catalog can be read from here.
        if (catalog.snapshot()->version() < update.new_snapshot->version()) snapshot_matched = false;
    });
    catalog.rescan();
    install_fixture("echo_v2", plugins);  // a new version: library and manifest
    catalog.rescan();
    EXPECT_TRUE(snapshot_matched);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0], std::make_pair(std::uint64_t{0}, std::uint64_t{1}));
    EXPECT_EQ(seen[1], std::make_pair(std::uint64_t{1}, std::uint64_t{2}));

    subscription.reset();
    EXPECT_FALSE(subscription.active());
    std::filesystem::remove(plugins / "echo.yaml");
    catalog.rescan();
    EXPECT_EQ(catalog.version(), 3u);
    EXPECT_EQ(seen.size(), 2u);
}

TEST_F(LiveCatalogTest, ASubscriberMayUnsubscribeItselfAndAThrowingOneDoesNotStopOthers) {
    install_fixture("echo", plugins);
    LiveCatalog catalog(options());
    Subscription self;
    int self_calls = 0;
    int other_calls = 0;
    self = catalog.subscribe([&](const CatalogUpdate&) {
        ++self_calls;
        self.reset();
    });
    auto thrower = catalog.subscribe([](const CatalogUpdate&) { throw std::runtime_error("subscriber bug"); });
    auto other = catalog.subscribe([&](const CatalogUpdate&) { ++other_calls; });
    catalog.rescan();
    std::filesystem::remove(plugins / "echo.yaml");
    catalog.rescan();
    EXPECT_EQ(self_calls, 1);
    EXPECT_EQ(other_calls, 2);
}

TEST_F(LiveCatalogTest, ASubscriptionMayOutliveItsCatalog) {
    Subscription subscription;
    {
        LiveCatalog catalog(options());
        subscription = catalog.subscribe([](const CatalogUpdate&) {});
        EXPECT_TRUE(subscription.active());
    }
    EXPECT_FALSE(subscription.active());
    subscription.reset();
}

}  // namespace
}  // namespace skillhost::reload
