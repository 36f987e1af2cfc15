// load_manifest on real files: fixtures, a missing file, a directory, a YAML syntax error.
#include "manifest_test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

namespace skillhost::manifest {
namespace {

using testing::problems_of;

const std::filesystem::path kFixtures = std::filesystem::path(SKILLHOST_TEST_FIXTURES_SOURCE_DIR) / "manifests";

class ManifestFile : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("skillhost-manifest-test-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::filesystem::path write(const std::string& name, const std::string& text) {
        const auto path = dir_ / name;
        std::ofstream(path) << text;
        return path;
    }

    std::filesystem::path dir_;
};

TEST_F(ManifestFile, MissingFileIsUnreadableAndNamesThePathAndReason) {
    const auto path = dir_ / "absent.yaml";
    const auto result = load_manifest(path);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, "MANIFEST_UNREADABLE");
    EXPECT_NE(result.error().message.find(path.string()), std::string::npos) << result.error().message;
    EXPECT_NE(result.error().message.find("No such file or directory"), std::string::npos) << result.error().message;
    EXPECT_EQ(result.error().details.at("file").as_string(), path.string());
    EXPECT_EQ(result.error().details.at("reason").as_string(), "No such file or directory");
}

TEST_F(ManifestFile, DirectoryIsUnreadable) {
    const auto result = load_manifest(dir_);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, "MANIFEST_UNREADABLE");
    EXPECT_NE(result.error().message.find("Is a directory"), std::string::npos) << result.error().message;
}

TEST_F(ManifestFile, UnpermittedFileIsUnreadable) {
    if (::geteuid() == 0) GTEST_SKIP() << "root reads files regardless of permissions";
    const auto path = write("locked.yaml", "name: demo\n");
    std::filesystem::permissions(path, std::filesystem::perms::none);
    const auto result = load_manifest(path);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, "MANIFEST_UNREADABLE");
    EXPECT_NE(result.error().message.find("Permission denied"), std::string::npos) << result.error().message;
}

TEST_F(ManifestFile, EmptyFileIsInvalid) {
    const auto path = write("empty.yaml", "");
    const auto result = load_manifest(path);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, "MANIFEST_INVALID");
    const auto problems = problems_of(result);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].line, 1);
    EXPECT_NE(problems[0].message.find("empty"), std::string::npos);
}

TEST_F(ManifestFile, SyntaxErrorCarriesYamlCppPosition) {
    const auto path = kFixtures / "syntax_error.yaml";
    const auto result = load_manifest(path);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, "MANIFEST_INVALID");
    const auto problems = problems_of(result);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].file, path.string());
    EXPECT_EQ(problems[0].line, 7);
    EXPECT_EQ(problems[0].column, 1);
    EXPECT_EQ(problems[0].field, "");
    EXPECT_NE(problems[0].message.find("YAML syntax error"), std::string::npos) << problems[0].message;
    EXPECT_EQ(result.error().message, problems[0].to_string());
}

TEST_F(ManifestFile, EveryProblemInAFileIsReportedInOrder) {
    const auto path = kFixtures / "several_problems.yaml";
    const auto result = load_manifest(path);
    ASSERT_FALSE(result.ok());
    const auto& error = result.error();
    EXPECT_EQ(error.code, "MANIFEST_INVALID");
    EXPECT_EQ(error.suggestions, std::vector<std::string>{"see docs/manifest-reference.md"});
    EXPECT_EQ(error.details.at("file").as_string(), path.string());
    const auto problems = problems_of(result);
    ASSERT_EQ(problems.size(), 4u) << error.message;
    EXPECT_EQ(problems[0].field, "name");
    EXPECT_EQ(problems[0].line, 1);
    EXPECT_EQ(problems[1].field, "abi_version");
    EXPECT_EQ(problems[1].line, 4);
    EXPECT_EQ(problems[2].field, "skills[0].risk");
    EXPECT_EQ(problems[2].line, 8);
    EXPECT_EQ(problems[2].column, 11);
    EXPECT_EQ(problems[3].field, "skills[0].timeout_ms");
    EXPECT_EQ(problems[3].line, 9);
    for (const auto& problem : problems) EXPECT_EQ(problem.file, path.string());
    EXPECT_EQ(error.message, problems[0].to_string() + " (and 3 more)");
    EXPECT_EQ(problems[0].to_string(), path.string() + ":1:7: name: " + problems[0].message);
}

}  // namespace
}  // namespace skillhost::manifest
