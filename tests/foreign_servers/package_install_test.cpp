// A declared package, end to end through the real binary and the real npm: `plugin install` of
// @modelcontextprotocol/server-memory at the version and integrity of npm/package-lock.json, the
// server then called sandboxed (no network: it runs from the install), a wrong integrity refused
// with nothing installed, a changed file refusing the load and named by `plugin verify`, and a
// package not installed named with what to run. npm's cache is the one the other tests of this
// binary fill (the same HOME), and install.sh decides whether npm is there (CI=true: it must be).
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
namespace test = skillhost::testing;

constexpr const char* kNpmName = "@modelcontextprotocol/server-memory";

class PackageInstallTest : public ::testing::Test {
protected:
    test::TempDir dir{"skillhost-package-install"};
    std::string config = (dir / "etc/skillhost.yaml").string();
    std::string home = (dir / "home").string();
    fs::path packages = dir / "packages";
    fs::path declaration = dir / "plugins/graph.yaml";
    std::string version, integrity;
    // npm's own setting, passed through by skillhost: what the cache has is not asked for again.
    test::SkillhostCommand skillhost{SKILLHOST_BINARY, config, home, {{"npm_config_prefer_offline", "true"}}, 110000};

    fs::path install_dir() const { return packages / ("@modelcontextprotocol+server-memory@" + version); }
    fs::path package_dir() const { return install_dir() / "node_modules" / kNpmName; }

    void SetUp() override {
        // Also fills npm's cache with the package and its dependencies.
        auto install =
            test::run_process({SKILLHOST_REAL_SERVERS_INSTALL, SKILLHOST_REAL_SERVERS_CACHE}, {}, {}, 300000);
        if (install.exit_code == 77) GTEST_SKIP() << install.err;
        ASSERT_EQ(install.exit_code, 0) << install.err;
        const auto lock = boost::json::parse(test::read_file(SKILLHOST_REAL_SERVERS_LOCKFILE)).as_object();
        const auto& pinned = lock.at("packages").as_object().at(std::string("node_modules/") + kNpmName).as_object();
        version = std::string(pinned.at("version").as_string());
        integrity = std::string(pinned.at("integrity").as_string());
        test::write_file(
            config, "plugin_dirs: [" + (dir / "plugins").string() + "]\npackages_dir: " + packages.string() + "\n");
        test::write_file(dir / "etc/users.yaml", "users:\n  - {id: owner, role: owner, trust: supervised_auto}\n");
        declare(integrity);
    }

    void declare(const std::string& declared_integrity) {
        test::write_file(declaration, std::string("kind: mcp_server\nname: graph\ntransport: stdio\ncommand: node\n"
                                                  "args: [\"${package}/dist/index.js\"]\n"
                                                  "env: {MEMORY_FILE_PATH: \"${data_dir}/graph.jsonl\"}\n"
                                                  "package: {npm: \"") +
                                          kNpmName + "\", version: \"" + version + "\", integrity: \"" +
                                          declared_integrity +
                                          "\"}\n"
                                          "skills:\n"
                                          "  - {id: create_entities, risk: low, requires_approval: false}\n"
                                          "  - {id: read_graph, risk: low, requires_approval: false}\n");
    }

    boost::json::object json_of(const test::ProcessResult& result) {
        std::error_code ec;
        auto value = boost::json::parse(result.out, ec);
        if (ec || !value.is_object()) {
            ADD_FAILURE() << "not a JSON object: " << result.out << result.err;
            return {};
        }
        return value.as_object();
    }

    // What packages_dir holds besides the lock files: no staging directory is ever left behind.
    std::vector<std::string> installed_entries() const {
        std::vector<std::string> names;
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(packages, ec))
            if (!entry.path().filename().string().ends_with(".lock")) names.push_back(entry.path().filename().string());
        return names;
    }

    void install() {
        auto installed = skillhost({"plugin", "install", declaration.string(), "--json"});
        ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err;
        auto out = json_of(installed);
        EXPECT_EQ(out["ok"], true);
        EXPECT_EQ(out["already_installed"], false);
        EXPECT_EQ(out["integrity"].as_string(), integrity);
        EXPECT_EQ(out["install_dir"].as_string(), install_dir().string());
        EXPECT_EQ(out["package_dir"].as_string(), package_dir().string());
        EXPECT_GT(out["files"].as_int64(), 10);
        EXPECT_TRUE(out["tree_digest"].as_string().starts_with("sha256-"));
    }
};

TEST_F(PackageInstallTest, InstalledOnceVerifiedAndCalledInItsSandboxFromTheInstall) {
    install();
    EXPECT_EQ(installed_entries(), std::vector<std::string>{install_dir().filename().string()});
    struct stat info {};
    ASSERT_EQ(::stat((package_dir() / "dist/index.js").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0004, 0004u) << "readable by the runner user of a root daemon";

    auto again = skillhost({"plugin", "install", declaration.string()});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find("is already installed and unchanged"), std::string::npos) << again.out;
    auto again_json = json_of(skillhost({"plugin", "install", declaration.string(), "--json"}));
    EXPECT_EQ(again_json["already_installed"], true);

    auto verified = skillhost({"plugin", "verify", declaration.string(), "--json"});
    ASSERT_EQ(verified.exit_code, 0) << verified.out << verified.err;
    EXPECT_EQ(json_of(verified)["ok"], true);

    auto created = json_of(
        skillhost({"call", "graph__create_entities", "--json", "--args",
                   R"({"entities":[{"name":"pkg","entityType":"test","observations":["from the install"]}]})"}));
    ASSERT_EQ(created["ok"], true) << boost::json::serialize(created);
    auto graph = json_of(skillhost({"call", "graph__read_graph", "--json", "--args", "{}"}));
    ASSERT_EQ(graph["ok"], true) << boost::json::serialize(graph);
    EXPECT_NE(boost::json::serialize(graph["result"]).find("from the install"), std::string::npos);
    // Sandboxed as every third-party server: no network namespace of the host's, so it runs offline.
    auto shown = skillhost({"skills", "show", "graph__read_graph", "--json"});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_NE(shown.out.find("\"seccomp\""), std::string::npos) << shown.out;
}

TEST_F(PackageInstallTest, AChangedFileRefusesTheLoadAndVerifyNamesItUntilInstalledAgain) {
    install();
    const std::string changed = "node_modules/@modelcontextprotocol/server-memory/dist/index.js";
    {
        std::ofstream append(install_dir() / changed, std::ios::app);
        append << "\n// changed after the install\n";
    }
    auto call = json_of(skillhost({"call", "graph__read_graph", "--json", "--args", "{}"}));
    ASSERT_EQ(call["ok"], false);
    EXPECT_EQ(call["error"].at("code"), "PLUGIN_NOT_LOADED") << boost::json::serialize(call);
    EXPECT_EQ(call["error"].at("details").at("cause").at("code"), "UPSTREAM_PACKAGE_MODIFIED");
    EXPECT_NE(std::string(call["error"].at("message").as_string()).find(changed), std::string::npos)
        << boost::json::serialize(call);

    auto verify = skillhost({"plugin", "verify", declaration.string()});
    EXPECT_EQ(verify.exit_code, 1);
    EXPECT_NE(verify.err.find("UPSTREAM_PACKAGE_MODIFIED"), std::string::npos) << verify.err;
    EXPECT_NE(verify.err.find("file " + changed), std::string::npos) << verify.err;
    EXPECT_NE(verify.err.find("skillhost plugin install " + declaration.string()), std::string::npos) << verify.err;
    auto verify_json = json_of(skillhost({"plugin", "verify", declaration.string(), "--json"}));
    EXPECT_EQ(verify_json["error"].at("code"), "UPSTREAM_PACKAGE_MODIFIED");
    EXPECT_EQ(verify_json["error"].at("details").at("file").as_string(), changed);

    // Installing again replaces it in one step.
    auto reinstalled = json_of(skillhost({"plugin", "install", declaration.string(), "--json"}));
    EXPECT_EQ(reinstalled["ok"], true) << boost::json::serialize(reinstalled);
    EXPECT_NE(boost::json::serialize(reinstalled["replaced"]).find(changed), std::string::npos);
    EXPECT_EQ(installed_entries(), std::vector<std::string>{install_dir().filename().string()});
    EXPECT_EQ(skillhost({"plugin", "verify", declaration.string()}).exit_code, 0);
    auto graph = json_of(skillhost({"call", "graph__read_graph", "--json", "--args", "{}"}));
    EXPECT_EQ(graph["ok"], true) << boost::json::serialize(graph);
}

TEST_F(PackageInstallTest, AWrongIntegrityIsRefusedNamingBothAndNothingIsInstalled) {
    // A well-formed integrity of another tarball: one digit of the real one changed.
    std::string wrong = integrity;
    wrong[20] = wrong[20] == 'A' ? 'B' : 'A';
    declare(wrong);
    auto refused = skillhost({"plugin", "install", declaration.string()});
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("UPSTREAM_PACKAGE_INTEGRITY"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find(wrong), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find(integrity), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("nothing was installed"), std::string::npos) << refused.err;
    EXPECT_TRUE(installed_entries().empty());

    auto json = json_of(skillhost({"plugin", "install", declaration.string(), "--json"}));
    EXPECT_EQ(json["error"].at("code"), "UPSTREAM_PACKAGE_INTEGRITY");
    EXPECT_EQ(json["error"].at("details").at("declared_integrity").as_string(), wrong);
    EXPECT_EQ(json["error"].at("details").at("actual_integrity").as_string(), integrity);
    EXPECT_TRUE(installed_entries().empty());
}

TEST_F(PackageInstallTest, NotInstalledSaysToRunPluginInstall) {
    auto list = json_of(skillhost({"skills", "list", "--json"}));
    ASSERT_EQ(list["failures"].as_array().size(), 1u) << boost::json::serialize(list);
    const auto& failure = list["failures"].as_array().front().at("error");
    EXPECT_EQ(failure.at("code"), "UPSTREAM_PACKAGE_NOT_INSTALLED");
    EXPECT_NE(std::string(failure.at("message").as_string())
                  .find("run `skillhost plugin install " + declaration.string() + "`"),
              std::string::npos)
        << boost::json::serialize(failure);

    auto call = json_of(skillhost({"call", "graph__read_graph", "--json", "--args", "{}"}));
    EXPECT_EQ(call["error"].at("details").at("cause").at("code"), "UPSTREAM_PACKAGE_NOT_INSTALLED")
        << boost::json::serialize(call);

    auto verify = skillhost({"plugin", "verify", declaration.string()});
    EXPECT_EQ(verify.exit_code, 1);
    EXPECT_NE(verify.err.find("UPSTREAM_PACKAGE_NOT_INSTALLED"), std::string::npos) << verify.err;
    EXPECT_NE(verify.err.find("is not installed"), std::string::npos) << verify.err;

    test::write_file(dir / "plain.yaml", "kind: mcp_server\nname: plain\ntransport: stdio\ncommand: node\n");
    auto plain = skillhost({"plugin", "install", (dir / "plain.yaml").string(), "--json"});
    EXPECT_EQ(plain.exit_code, 2);
    EXPECT_EQ(json_of(plain)["error"].at("code"), "NO_PACKAGE_DECLARED");
}

}  // namespace
