// The catalog over plugins loaded for real: the echo fixture built twice (echo and echo_v2, both
// declaring the same skill ids) cannot both be in one snapshot.
#include "catalog/catalog_snapshot.hpp"
#include "plugin/plugin_loader.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::catalog {
namespace {

namespace fs = std::filesystem;

TEST(CatalogSnapshotLoaded, SecondPluginWithTheSameSkillIdsIsADuplicate) {
    testing::TempDir home("skillhost-catalog");
    plugin::PluginLoader loader(plugin::LoaderOptions{home / "cache", {}});
    const fs::path fixtures = SKILLHOST_TEST_FIXTURES_BINARY_DIR;
    auto v1 = loader.load_file(fixtures / "echo" / "echo.yaml");
    auto v2 = loader.load_file(fixtures / "echo_v2" / "echo.yaml");
    ASSERT_TRUE(v1.ok()) << v1.error().message;
    ASSERT_TRUE(v2.ok()) << v2.error().message;

    const CatalogSnapshot catalog(3, {v1.value(), v2.value()}, {});
    ASSERT_EQ(catalog.plugins().size(), 1u);
    EXPECT_EQ(catalog.plugins()[0], v1.value());
    EXPECT_EQ(catalog.entries().size(), v1.value()->manifest().skills.size());
    ASSERT_EQ(catalog.failures().size(), 1u);
    EXPECT_EQ(catalog.failures()[0].error.code, "DUPLICATE_SKILL");
    EXPECT_EQ(catalog.failures()[0].manifest_file, v2.value()->manifest().file);
    const CatalogEntry* version = catalog.find("version");
    ASSERT_NE(version, nullptr);
    EXPECT_EQ(version->plugin, v1.value());
}

}  // namespace
}  // namespace skillhost::catalog
