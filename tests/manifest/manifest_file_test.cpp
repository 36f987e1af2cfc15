// load_manifest on real files: fixtures, a missing file, a directory, a YAML syntax error.
#include "manifest_test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

namespace skillhost::manifest {
namespace {

using testing::problems_of;

const std::filesystem::path kFixtures = std::filesystem::path(SKILLHOST_TEST_FIXTURES_SOURCE_DIR) / "manifests";

class ManifestFile : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ =
            std::filesystem::temp_directory_path() / ("skillhost-manifest-test-" + std::to_string(::getpid()) + "-" +
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

// load_manifest(path) in a child process that runs as an unprivileged user: root reads files
// regardless of their permissions, and CI runs as root. Returns "<code>\n<message>".
std::string load_as_unprivileged_user(const std::filesystem::path& path) {
    int fds[2];
    if (::pipe(fds) != 0) return "pipe failed";
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        constexpr uid_t nobody = 65534;
        if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(nobody) != 0 || ::setuid(nobody) != 0))
            _exit(3);
        const auto result = load_manifest(path);
        const std::string said =
            result.ok() ? std::string("ok\n") : result.error().code + "\n" + result.error().message;
        const bool written = ::write(fds[1], said.data(), said.size()) == static_cast<ssize_t>(said.size());
        _exit(written ? 0 : 4);
    }
    ::close(fds[1]);
    std::string said;
    char buffer[512];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) said.append(buffer, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "the child failed with status " + std::to_string(status);
    return said;
}

TEST_F(ManifestFile, UnpermittedFileIsUnreadable) {
    std::filesystem::permissions(dir_, std::filesystem::perms::all);  // the unprivileged user may look inside
    const auto path = write("locked.yaml", "name: demo\n");
    std::filesystem::permissions(path, std::filesystem::perms::none);
    const std::string said = load_as_unprivileged_user(path);
    EXPECT_EQ(said.rfind("MANIFEST_UNREADABLE\n", 0), 0u) << said;
    EXPECT_NE(said.find("Permission denied"), std::string::npos) << said;
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
