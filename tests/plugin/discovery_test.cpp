// discover_plugins(): every manifest in the configured directories, good plugins loaded, every
// broken one reported once with its reason, never an exception.
#include "plugin_test_support.hpp"

#include <gmock/gmock.h>

#include <algorithm>
#include <map>

namespace skillhost::plugin {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> names_of(const DiscoveryReport& report) {
    std::vector<std::string> names;
    for (const auto& plugin : report.plugins) names.push_back(plugin->manifest().name);
    return names;
}

std::map<std::string, std::string> failure_codes_by_file(const DiscoveryReport& report) {
    std::map<std::string, std::string> codes;
    for (const auto& failure : report.failures) codes[failure.manifest_file.filename().string()] = failure.error.code;
    return codes;
}

class DiscoveryTest : public testing::LoaderTest {
protected:
    test::TempDir plugins{"skillhost-plugins"};
};

TEST_F(DiscoveryTest, MixedDirectoryYieldsGoodPluginsAndOneFailurePerBrokenOne) {
    for (const char* fixture : {"plain_c", "echo", "wrong_major", "skills_mismatch", "missing_library", "init_fails"})
        test::copy_fixture(fixture, plugins.path());
    test::write_file(plugins / "garbage.yml", "name: [this is not closed\n");
    test::write_file(plugins / "README.txt", "not a manifest, ignored\n");

    DiscoveryReport report = discover_plugins(make_loader(), {plugins.path()});

    EXPECT_THAT(names_of(report), ElementsAre("echo", "plain_c"));  // sorted by manifest file name
    auto codes = failure_codes_by_file(report);
    EXPECT_EQ(report.failures.size(), 5u);
    EXPECT_EQ(codes["wrong_major.yaml"], "ABI_INCOMPATIBLE");
    EXPECT_EQ(codes["skills_mismatch.yaml"], "SKILLS_MISMATCH");
    EXPECT_EQ(codes["missing_library.yaml"], "LIBRARY_NOT_FOUND");
    EXPECT_EQ(codes["init_fails.yaml"], "PLUGIN_INIT_FAILED");
    EXPECT_THAT(codes["garbage.yml"], HasSubstr("MANIFEST"));
    for (const auto& failure : report.failures) {
        if (failure.manifest_file.filename() == "garbage.yml") {
            EXPECT_TRUE(failure.plugin_name.empty());
        } else {
            EXPECT_EQ(failure.plugin_name, failure.manifest_file.stem().string());
        }
    }
}

TEST_F(DiscoveryTest, MissingDirectoryIsReportedAndOthersStillLoad) {
    test::copy_fixture("echo", plugins.path());
    const auto missing = plugins / "does-not-exist";

    DiscoveryReport report = discover_plugins(make_loader(), {missing, plugins.path()});

    EXPECT_THAT(names_of(report), ElementsAre("echo"));
    ASSERT_EQ(report.failures.size(), 1u);
    EXPECT_EQ(report.failures[0].error.code, "DIR_NOT_FOUND");
    EXPECT_EQ(report.failures[0].manifest_file, missing);
    EXPECT_THAT(report.failures[0].error.message, HasSubstr(missing.string()));
}

TEST_F(DiscoveryTest, SeveralDirectoriesAndDuplicateNames) {
    test::copy_fixture("echo", plugins / "one");
    test::copy_fixture("plain_c", plugins / "one");
    test::copy_fixture("echo_v2", plugins / "two");  // also named "echo"

    DiscoveryReport report = discover_plugins(make_loader(), {plugins / "one", plugins / "two"});

    EXPECT_THAT(names_of(report), ElementsAre("echo", "plain_c"));
    ASSERT_EQ(report.failures.size(), 1u);
    EXPECT_EQ(report.failures[0].error.code, "DUPLICATE_PLUGIN");
    EXPECT_EQ(report.failures[0].plugin_name, "echo");
    EXPECT_EQ(report.failures[0].manifest_file, plugins / "two" / "echo.yaml");
}

TEST_F(DiscoveryTest, EmptyDirectoryFindsNothing) {
    DiscoveryReport report = discover_plugins(make_loader(), {plugins.path()});
    EXPECT_TRUE(report.plugins.empty());
    EXPECT_TRUE(report.failures.empty());
}

}  // namespace
}  // namespace skillhost::plugin
