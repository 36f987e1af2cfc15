// A foreign server whose declaration pins a package (`package:`) follows its install while the host
// runs: the declaration fails to load until the install is there, and joins the catalog as soon as
// `skillhost plugin install` renames it into place (no touch of the declaration, no restart); an
// install replaced by another is seen too. Real inotify on a temporary packages_dir that does not
// exist when watching starts; the installs are built as install_package builds them (a tree and
// its record, in a staging directory, renamed into place).
#include "plugin/foreign_package.hpp"
#include "plugin/package_tree.hpp"
#include "upstream/error_codes.hpp"
#include "reload/plugin_watcher.hpp"
#include "reload_test_support.hpp"

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>

#include <fstream>

namespace skillhost::reload {
namespace {

using namespace std::chrono_literals;
using test::TempDir;
using test::wait_until;

const std::string kIntegrity = "sha512-" + std::string(86, 'A') + "==";

class PackageWatchTest : public ::testing::Test {
protected:
    TempDir root{"skillhost-package-watch"};
    std::filesystem::path plugins = root / "plugins";
    std::filesystem::path packages = root / "packages";  // made by the first install, as the CLI does
    manifest::ForeignPackage package{"fake-mcp", "1.0.0", kIntegrity};

    void SetUp() override {
        std::filesystem::create_directories(plugins);
        const auto server = test::fixture_dir("foreign_mcp") / "skillhost_fixture_mcp_server";
        std::ofstream(plugins / "pkg.yaml")
            << "kind: mcp_server\nname: pkg\ntransport: stdio\ncommand: " << server.string()
            << "\npackage: {npm: fake-mcp, version: \"1.0.0\", integrity: \"" << kIntegrity << "\"}\n"
            << "defaults: {risk: low, min_trust: observe, requires_approval: false}\n";
    }

    // Builds an install of `package` recorded with `integrity` in a staging directory inside
    // packages_dir and returns it.
    std::filesystem::path stage(const std::string& integrity, const std::string& name) {
        const auto staged = packages / (".staging-" + name) / "install";
        const auto dir = plugin::package_directory(staged, package);
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "package.json") << R"({"name":"fake-mcp","version":"1.0.0"})";
        auto tree = plugin::read_package_tree(staged, errors::kUpstreamPackageInstallFailed);
        EXPECT_TRUE(tree) << tree.error().message;
        plugin::PackageRecord record{package.npm, package.version, integrity, tree.value()};
        std::ofstream(staged / plugin::kPackageRecordFile)
            << boost::json::serialize(plugin::package_record_json(record));
        return staged;
    }

    std::filesystem::path install_dir() const { return plugin::package_install_dir(packages, package); }

    LiveCatalog& catalog() {
        if (!catalog_) {
            LiveCatalogOptions options;
            options.plugin_dirs = {plugins};
            options.loader.cache_dir = root / "cache";
            options.loader.packages_dir = packages;
            options.loader.isolation.sandbox = plugin::SandboxMode::off;
            catalog_ = std::make_unique<LiveCatalog>(options);
        }
        return *catalog_;
    }
    void start_watching() {
        watcher_ = std::make_unique<PluginWatcher>(catalog(), WatcherOptions{20ms, 500ms});
        const auto started = watcher_->start();
        ASSERT_TRUE(started.ok()) << started.error().message;
    }
    bool has_skill(std::string_view id) { return catalog().snapshot()->find(id) != nullptr; }
    // The failure recorded for pkg.yaml (its code, and its cause's when a previous version serves).
    std::string failure() {
        for (const auto& f : catalog().snapshot()->failures()) {
            if (f.manifest_file.filename() != "pkg.yaml") continue;
            std::string code = f.error.code;
            if (const auto* cause = f.error.details.if_contains("cause"))
                code += " " + std::string(cause->at("code").as_string());
            return code;
        }
        return "";
    }

    std::unique_ptr<LiveCatalog> catalog_;
    std::unique_ptr<PluginWatcher> watcher_;  // declared last: stopped before the catalog goes

    void TearDown() override {
        watcher_.reset();
        catalog_.reset();
    }
};

TEST_F(PackageWatchTest, TheServerJoinsTheCatalogWhenItsPackageIsInstalledWhileTheHostRuns) {
    start_watching();
    EXPECT_EQ(failure(), "UPSTREAM_PACKAGE_NOT_INSTALLED");
    EXPECT_FALSE(has_skill("pkg__echo"));

    const auto staged = stage(kIntegrity, "a");
    std::filesystem::rename(staged, install_dir());
    ASSERT_TRUE(wait_until([&] { return has_skill("pkg__echo"); }, 20s)) << "still failing: " << failure();
    EXPECT_EQ(failure(), "");
}

TEST_F(PackageWatchTest, AnInstallReplacedWhileTheHostRunsIsCheckedAgain) {
    std::filesystem::rename(stage(kIntegrity, "a"), install_dir());
    start_watching();
    ASSERT_TRUE(has_skill("pkg__echo")) << failure();

    // Another install swapped in, as `plugin install` swaps one (renameat2 RENAME_EXCHANGE), but
    // made from another tarball: the host checks it at once and keeps the running version.
    const std::string other = "sha512-" + std::string(86, 'B') + "==";
    const auto staged = stage(other, "b");
    ASSERT_EQ(::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, install_dir().c_str(), RENAME_EXCHANGE), 0)
        << std::strerror(errno);
    ASSERT_TRUE(
        wait_until([&] { return failure() == "RELOAD_FAILED_KEEPING_PREVIOUS UPSTREAM_PACKAGE_INTEGRITY"; }, 20s))
        << failure();
    EXPECT_TRUE(has_skill("pkg__echo"));

    // The declared install swapped back: the failure clears.
    ASSERT_EQ(::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, install_dir().c_str(), RENAME_EXCHANGE), 0)
        << std::strerror(errno);
    ASSERT_TRUE(wait_until([&] { return failure().empty(); }, 20s)) << failure();
    EXPECT_TRUE(has_skill("pkg__echo"));
}

}  // namespace
}  // namespace skillhost::reload
