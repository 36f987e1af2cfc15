// Every way a plugin can fail to load gives its own error code, a message naming what is wrong
// and what to do, and the manifest and library paths in details.
#include "fixtures/fixture_support.hpp"
#include "plugin/plugin_loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>
#include <vector>

namespace skillhost::plugin {
namespace {

using test::fixture_dir;
using test::fixture_manifest;
using test::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

#define SKILLHOST_TEST_TEXT(x) #x
#define SKILLHOST_TEST_VERSION(major, minor, patch) \
    SKILLHOST_TEST_TEXT(major) "." SKILLHOST_TEST_TEXT(minor) "." SKILLHOST_TEST_TEXT(patch)
// The ABI version this host implements, as its messages write it ("1.1.0").
constexpr const char* kHostAbi =
    SKILLHOST_TEST_VERSION(SKILLHOST_ABI_VERSION_MAJOR, SKILLHOST_ABI_VERSION_MINOR, SKILLHOST_ABI_VERSION_PATCH);

struct BrokenFixture {
    std::string fixture;
    std::string code;
    std::vector<std::string> message_mentions;
};

std::ostream& operator<<(std::ostream& out, const BrokenFixture& f) {
    return out << f.fixture;
}

class LoadErrorTest : public ::testing::TestWithParam<BrokenFixture> {
protected:
    TempDir cache{"skillhost-cache"};
    PluginLoader loader{LoaderOptions{cache.path(), nullptr}};
};

TEST_P(LoadErrorTest, ReportsCodeMessageAndPaths) {
    const BrokenFixture& broken = GetParam();
    const auto manifest = fixture_manifest(broken.fixture);

    auto loaded = loader.load_file(manifest);

    ASSERT_FALSE(loaded.ok()) << broken.fixture << " loaded although it is broken";
    const Error& error = loaded.error();
    EXPECT_EQ(error.code, broken.code) << error.message;
    for (const auto& mention : broken.message_mentions) EXPECT_THAT(error.message, HasSubstr(mention));
    ASSERT_TRUE(error.details.contains("manifest"));
    EXPECT_EQ(error.details.at("manifest").as_string(), manifest.string());
    ASSERT_TRUE(error.details.contains("library"));
    EXPECT_THAT(std::string(error.details.at("library").as_string()), HasSubstr(fixture_dir(broken.fixture).string()));
    // A failed load leaves no private copy behind.
    EXPECT_TRUE(std::filesystem::is_empty(cache.path()) || !std::filesystem::exists(cache.path()));
}

INSTANTIATE_TEST_SUITE_P(
    BrokenFixtures, LoadErrorTest,
    ::testing::Values(
        BrokenFixture{"missing_library", "LIBRARY_NOT_FOUND", {"libmissing_library.so", "missing_library.yaml"}},
        BrokenFixture{"not_a_library", "LIBRARY_LOAD_FAILED", {"libnot_a_library.so"}},
        BrokenFixture{
            "undefined_symbol", "LIBRARY_LOAD_FAILED", {"skillhost_fixture_symbol_nobody_defines", "undefined symbol"}},
        BrokenFixture{"missing_entry", "ENTRY_MISSING", {"skillhost_plugin_entry", "SKILLHOST_PLUGIN"}},
        BrokenFixture{"entry_null", "ENTRY_RETURNED_NULL", {"NULL"}},
        BrokenFixture{"wrong_major", "ABI_INCOMPATIBLE", {"'wrong_major'", "2.0.0", kHostAbi, "SkillhostSDK 1.x"}},
        BrokenFixture{"newer_minor", "ABI_INCOMPATIBLE", {"'newer_minor'", "1.99.0", kHostAbi}},
        BrokenFixture{"struct_too_small", "STRUCT_TOO_SMALL", {"16 bytes", "sizeof(skillhost_plugin)"}},
        BrokenFixture{"name_mismatch", "NAME_MISMATCH", {"'name_mismatch'", "'other_name'"}},
        BrokenFixture{"skills_mismatch", "SKILLS_MISMATCH", {"'a'", "'c'"}},
        BrokenFixture{"shapes_version_mismatch",
                      "VERSION_MISMATCH",
                      {"'version_mismatch'", "version_mismatch.yaml", "1.3.0", "1.2.3", "SKILLHOST_PLUGIN_VERSION"}},
        BrokenFixture{"duplicate_skill", "DUPLICATE_SKILL_ID", {"'ping'"}},
        BrokenFixture{"null_invoke", "INVOKE_MISSING", {"'ping'"}},
        BrokenFixture{"init_fails", "PLUGIN_INIT_FAILED", {"DATABASE_MISSING", "database missing"}}),
    [](const auto& test_info) { return test_info.param.fixture; });

class LoadErrorDetailsTest : public ::testing::Test {
protected:
    TempDir cache{"skillhost-cache"};
    PluginLoader loader{LoaderOptions{cache.path(), nullptr}};
};

TEST_F(LoadErrorDetailsTest, SkillsMismatchNamesMissingAndExtraSkills) {
    auto loaded = loader.load_file(fixture_manifest("skills_mismatch"));
    ASSERT_FALSE(loaded.ok());
    const auto& details = loaded.error().details;
    EXPECT_EQ(details.at("missing"), boost::json::array({"a"}));
    EXPECT_EQ(details.at("extra"), boost::json::array({"c"}));
    // b is in both and must not be named as a problem.
    EXPECT_THAT(loaded.error().message, Not(HasSubstr("'b'")));
}

TEST_F(LoadErrorDetailsTest, AbiIncompatibleNamesBothVersionsInDetails) {
    auto loaded = loader.load_file(fixture_manifest("wrong_major"));
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().details.at("plugin_abi"), "2.0.0");
    EXPECT_EQ(loaded.error().details.at("host_abi"), kHostAbi);
    EXPECT_FALSE(loaded.error().suggestions.empty());
}

TEST_F(LoadErrorDetailsTest, VersionMismatchNamesBothVersionsInDetails) {
    auto loaded = loader.load_file(fixture_manifest("shapes_version_mismatch"));
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().code, "VERSION_MISMATCH");
    EXPECT_EQ(loaded.error().details.at("manifest_version"), "1.3.0");
    EXPECT_EQ(loaded.error().details.at("library_version"), "1.2.3");
}

TEST_F(LoadErrorDetailsTest, InitFailureCarriesWhatThePluginWrote) {
    auto loaded = loader.load_file(fixture_manifest("init_fails"));
    ASSERT_FALSE(loaded.ok());
    const auto& details = loaded.error().details;
    EXPECT_EQ(details.at("plugin_code"), "DATABASE_MISSING");
    EXPECT_EQ(details.at("plugin_message"), "database missing: run the setup skill first");
    EXPECT_EQ(details.at("plugin_details").at("database"), "/nonexistent/init_fails.db");
}

TEST_F(LoadErrorDetailsTest, LoadFailureNamesTheOriginalFileNotThePrivateCopy) {
    auto loaded = loader.load_file(fixture_manifest("undefined_symbol"));
    ASSERT_FALSE(loaded.ok());
    EXPECT_THAT(loaded.error().message, HasSubstr(fixture_dir("undefined_symbol").string()));
    EXPECT_THAT(loaded.error().message, Not(HasSubstr(cache.path().string())));
}

TEST_F(LoadErrorDetailsTest, ManifestAbiMustAgreeWithTheLibrary) {
    auto manifest = manifest::load_manifest(fixture_manifest("echo"));
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    manifest->abi.minor = 7;  // the library was built for 1.1: the manifest claims a newer minor

    auto loaded = loader.load(manifest.value());

    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().code, "ABI_MISMATCH");
    EXPECT_THAT(loaded.error().message, HasSubstr("1.7"));
    EXPECT_THAT(loaded.error().message, HasSubstr("1.1.0"));
}

TEST_F(LoadErrorDetailsTest, ManifestMayStateAnOlderMinorThanTheLibrary) {
    auto manifest = manifest::load_manifest(fixture_manifest("echo"));
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    manifest->abi.minor = 0;  // "needs 1.0"; the library was built against the 1.1 header

    auto loaded = loader.load(manifest.value());

    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
}

TEST_F(LoadErrorDetailsTest, UnusableCacheDirectoryIsPrivateCopyFailed) {
    TempDir dir;
    test::write_file(dir / "not-a-dir", "a file where the cache directory should go");
    PluginLoader blocked(LoaderOptions{dir / "not-a-dir" / "cache", nullptr});

    auto loaded = blocked.load_file(fixture_manifest("echo"));

    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().code, "PRIVATE_COPY_FAILED");
    EXPECT_THAT(loaded.error().message, HasSubstr((dir / "not-a-dir" / "cache").string()));
    EXPECT_EQ(loaded.error().details.at("manifest").as_string(), fixture_manifest("echo").string());
}

TEST_F(LoadErrorDetailsTest, UnreadableManifestKeepsItsPath) {
    TempDir dir;
    const auto manifest = dir / "broken.yaml";
    test::write_file(manifest, "name: [unclosed\n");

    auto loaded = loader.load_file(manifest);

    ASSERT_FALSE(loaded.ok());
    EXPECT_THAT(loaded.error().code, HasSubstr("MANIFEST"));
    EXPECT_EQ(loaded.error().details.at("manifest").as_string(), manifest.string());
}

}  // namespace
}  // namespace skillhost::plugin
