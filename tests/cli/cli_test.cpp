// The `skillhost` executable end to end, run as a user runs it, against fixture plugins.
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

using skillhost::testing::ProcessResult;
using skillhost::testing::run_process;
using skillhost::testing::TempDir;
using skillhost::testing::write_file;

const std::string kFixtures = SKILLHOST_TEST_FIXTURES_BINARY_DIR;

class CliTest : public ::testing::Test {
protected:
    TempDir dir{"skillhost-cli"};
    std::string config = (dir / "skillhost.yaml").string();
    std::string home = (dir / "home").string();

    void SetUp() override {
        write_file(config,
                   "include_builtin_plugins: false\n"
                   "plugin_dirs:\n"
                   "  - " +
                       kFixtures +
                       "/echo\n"
                       "  - " +
                       kFixtures + "/wrong_major\n");
        // adaptive_auto runs every call without approval, so these tests see the skills' own results.
        write_file(dir / "users.yaml", "users:\n  - {id: owner, role: owner, trust: adaptive_auto}\n");
    }

    ProcessResult skillhost(std::vector<std::string> args) {
        args.insert(args.begin(), SKILLHOST_BINARY);
        args.push_back("--config");
        args.push_back(config);
        args.push_back("--home");
        args.push_back(home);
        return run_process(args);
    }
};

TEST_F(CliTest, SkillsListShowsSkillsAndWhyABrokenPluginFailed) {
    auto r = skillhost({"skills", "list"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("echo"), std::string::npos);
    EXPECT_NE(r.out.find("noop"), std::string::npos);
    EXPECT_NE(r.out.find("failed to load"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ABI_INCOMPATIBLE"), std::string::npos) << r.out;
}

TEST_F(CliTest, SkillsListJsonIsMachineReadable) {
    auto r = skillhost({"skills", "list", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto v = boost::json::parse(r.out).as_object();
    bool found_add = false;
    for (const auto& s : v.at("skills").as_array())
        if (s.at("id").as_string() == "add") {
            found_add = true;
            EXPECT_EQ(s.at("plugin").as_string(), "echo");
        }
    EXPECT_TRUE(found_add);
    ASSERT_EQ(v.at("failures").as_array().size(), 1u);
    EXPECT_EQ(v.at("failures").as_array()[0].at("error").at("code").as_string(), "ABI_INCOMPATIBLE");
}

TEST_F(CliTest, CallRunsASkillAndPrintsItsResult) {
    auto r = skillhost({"call", "add", "--args", R"({"a":2,"b":40})", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto v = boost::json::parse(r.out).as_object();
    EXPECT_TRUE(v.at("ok").as_bool());
    EXPECT_EQ(v.at("result").at("sum").as_int64(), 42);
}

// Content items (skillhost.content/1) follow the result: text as it is, binary as type and size.
// A skill's question stops a CLI call: it exits 1 naming the question, to answer with
// `skillhost elicitations answer` (tests/server/serve_elicitations_test.cpp answers it).
TEST_F(CliTest, CallPrintsTheSkillsContentItemsAfterItsResultAndStopsAtAQuestion) {
    write_file(config, "include_builtin_plugins: false\nplugin_dirs:\n  - " + kFixtures + "/rich\n");
    auto r = skillhost({"call", "rich_content"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"items\": 5\n}\nHere is the chart.\n[image image/png, 33 bytes]\n"
                         "[audio audio/wav, 16 bytes]\n[link q3.pdf] file:///reports/q3.pdf\n"
                         "[resource skillhost://notes/1]\nfirst note\n"),
              std::string::npos)
        << r.out;
    auto json_out = skillhost({"call", "rich_content", "--json"});
    auto v = boost::json::parse(json_out.out).as_object();
    EXPECT_EQ(v.at("content").as_array().size(), 5u) << json_out.out;
    auto asked = skillhost({"call", "rich_elicit"});
    EXPECT_EQ(asked.exit_code, 1);
    EXPECT_NE(asked.err.find("ELICITATION_REQUIRED"), std::string::npos) << asked.out << asked.err;
    EXPECT_NE(asked.out.find("asks: Who is asking?"), std::string::npos) << asked.out << asked.err;
}

TEST_F(CliTest, CallReportsASkillErrorWithItsHintsAndExitsOne) {
    auto r = skillhost({"call", "fail"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("error: ECHO_FAILED"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("hint:"), std::string::npos) << r.err;
}

TEST_F(CliTest, CallRejectsInvalidArgumentsBeforeThePluginSeesThem) {
    auto r = skillhost({"call", "add", "--args", R"({"a":"two","b":1})"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("INVALID_ARGS"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("args.a"), std::string::npos) << r.err;
}

TEST_F(CliTest, CallWithMalformedJsonIsAUsageError) {
    auto r = skillhost({"call", "add", "--args", "{a:1"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--args is not valid JSON"), std::string::npos) << r.err;
}

TEST_F(CliTest, UnknownSkillSuggestsCloseNames) {
    auto r = skillhost({"call", "ech"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("SKILL_NOT_FOUND"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("echo"), std::string::npos) << r.err;
}

TEST_F(CliTest, SkillsShowDescribesOneSkill) {
    auto r = skillhost({"skills", "show", "add"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("plugin:"), std::string::npos);
    EXPECT_NE(r.out.find("skillhost call add --args"), std::string::npos) << r.out;
    auto missing = skillhost({"skills", "show", "nope"});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("SKILL_NOT_FOUND"), std::string::npos);
}

TEST_F(CliTest, CatalogRendersEveryFormat) {
    for (const std::string fmt : {"json", "openai", "mcp"}) {
        auto r = skillhost({"catalog", "--format", fmt});
        ASSERT_EQ(r.exit_code, 0) << fmt << ": " << r.err;
        EXPECT_TRUE(boost::json::parse(r.out).is_array()) << fmt;
    }
    auto text = skillhost({"catalog"});
    ASSERT_EQ(text.exit_code, 0);
    EXPECT_NE(text.out.find("add"), std::string::npos);
    auto bad = skillhost({"catalog", "--format", "xml"});
    EXPECT_EQ(bad.exit_code, 2);
}

TEST_F(CliTest, PluginCheckPassesAGoodPlugin) {
    auto r = skillhost({"plugin", "check", kFixtures + "/plain_c/plain_c.yaml"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("PASS  load"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

TEST_F(CliTest, PluginCheckFailsABrokenPluginAndSaysWhy) {
    auto r = skillhost({"plugin", "check", kFixtures + "/skills_mismatch/skills_mismatch.yaml", "--json"});
    EXPECT_EQ(r.exit_code, 1);
    auto v = boost::json::parse(r.out).as_object();
    EXPECT_GE(v.at("failed").as_int64(), 1);
    EXPECT_NE(r.out.find("SKILLS_MISMATCH"), std::string::npos) << r.out;
}

TEST_F(CliTest, PluginCheckReportsEveryManifestProblemNotJustTheFirst) {
    // Three independent mistakes: a bad plugin name, an unknown risk, a missing skill description.
    const auto manifest = dir / "broken.yaml";
    write_file(manifest,
               "name: Broken\n"
               "version: 1.0.0\n"
               "library: libbroken.so\n"
               "abi_version: \"1.1\"\n"
               "skills:\n"
               "  - id: one\n"
               "    description: first\n"
               "    risk: extreme\n"
               "  - id: two\n");
    auto text = skillhost({"plugin", "check", manifest.string()});
    EXPECT_EQ(text.exit_code, 1);
    EXPECT_EQ(text.out.find("more)"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("broken.yaml:1:7: name:"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("skills[0].risk"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("skills[1]"), std::string::npos) << text.out;

    auto json = skillhost({"plugin", "check", manifest.string(), "--json"});
    EXPECT_EQ(json.exit_code, 1);
    auto v = boost::json::parse(json.out).as_object();
    std::size_t manifest_failures = 0;
    for (const auto& check : v.at("checks").as_array())
        if (check.at("check").as_string() == "manifest" && !check.at("ok").as_bool()) ++manifest_failures;
    EXPECT_GE(manifest_failures, 3u) << json.out;
    EXPECT_EQ(v.at("failed").as_int64(), static_cast<std::int64_t>(manifest_failures));
}

TEST_F(CliTest, PluginCheckListsEveryWayAnExamplesResultBreaksTheDeclaredOutputs) {
    // `measure` answers {"length":"ten","unit":"yards"} where its outputs declare length: number,
    // unit: m|ft and a required `exact`; `measure_right` keeps to the same outputs.
    const std::string manifest = kFixtures + "/wrong_outputs/wrong_outputs.yaml";
    auto text = skillhost({"plugin", "check", manifest});
    EXPECT_EQ(text.exit_code, 1) << text.out << text.err;
    for (const char* field : {"result.length", "result.unit", "result.exact"})
        EXPECT_NE(text.out.find(std::string("FAIL  example 1 (any length) result matches outputs [measure]: ") + field),
                  std::string::npos)
            << field << "\n"
            << text.out;
    EXPECT_NE(text.out.find("PASS  example 1 [measure_right]: ok"), std::string::npos) << text.out;

    auto json = skillhost({"plugin", "check", manifest, "--json"});
    EXPECT_EQ(json.exit_code, 1) << json.err;
    const auto v = boost::json::parse(json.out).as_object();
    std::vector<std::string> broken;
    for (const auto& check : v.at("checks").as_array()) {
        const auto& c = check.as_object();
        if (c.at("check").as_string() == "example 1 (any length) result matches outputs") {
            EXPECT_FALSE(c.at("ok").as_bool());
            EXPECT_EQ(c.at("skill").as_string(), "measure");
            broken.emplace_back(c.at("detail").as_string());
        }
    }
    ASSERT_EQ(broken.size(), 3u) << json.out;
    EXPECT_EQ(broken[0].rfind("result.", 0), 0u) << broken[0];
}

TEST_F(CliTest, BadConfigNamesFileLineAndKey) {
    write_file(config, "plugin_dirs: []\nhoem: /tmp/x\n");
    auto r = skillhost({"skills", "list"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("skillhost.yaml:2:1: hoem: unknown setting"), std::string::npos) << r.err;
}

TEST_F(CliTest, ModelsListAndTestTheBuiltinModel) {
    auto list = skillhost({"models", "list", "--json"});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    auto roles = boost::json::parse(list.out).at("roles").as_array();
    ASSERT_EQ(roles.size(), 6u);
    EXPECT_EQ(roles[0].at("backend").as_string(), "builtin");
    auto test = skillhost({"models", "test", "orchestrator", "--json"});
    ASSERT_EQ(test.exit_code, 0) << test.out << test.err;
    EXPECT_TRUE(boost::json::parse(test.out).at("structured_output_ok").as_bool());
    auto bad = skillhost({"models", "test", "oracle"});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.err.find("not a model role"), std::string::npos) << bad.err;
}

// Trying a plugin needs no configuration file: --plugin-dir, or an install into <home>/plugins.
TEST(CliPluginDirs, PluginDirOptionAndTheHomePluginDirectoryNeedNoConfigFile) {
    TempDir dir{"skillhost-plugin-dirs"};
    const std::string home = (dir / "home").string();
    auto call = run_process({SKILLHOST_BINARY, "call", "--plugin-dir", kFixtures + "/echo", "add", "--args",
                             R"({"a":2,"b":3})", "--json", "--home", home});
    ASSERT_EQ(call.exit_code, 0) << call.out << call.err;
    EXPECT_EQ(boost::json::parse(call.out).at("result").at("sum").as_int64(), 5);

    auto missing =
        run_process({SKILLHOST_BINARY, "skills", "list", "--plugin-dir", (dir / "nope").string(), "--home", home});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("PLUGIN_DIR_NOT_FOUND"), std::string::npos) << missing.err;

    std::filesystem::create_directories(dir / "home/plugins");
    for (const auto* file : {"libplain_c.so", "plain_c.yaml"})
        std::filesystem::copy_file(kFixtures + "/plain_c/" + file, dir / "home/plugins" / file);
    auto list = run_process({SKILLHOST_BINARY, "skills", "list", "--json", "--home", home});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    bool found = false;
    const auto listed = boost::json::parse(list.out);
    for (const auto& s : listed.at("skills").as_array()) found = found || s.at("plugin").as_string() == "plain_c";
    EXPECT_TRUE(found) << list.out;
}

TEST(CliPluginNew, WritesAProjectWhoseManifestValidatesAndRefusesBadRequests) {
    TempDir dir{"skillhost-plugin-new"};
    for (const std::string lang : {"c", "cpp"}) {
        const auto project = dir / ("demo_" + lang);
        auto r =
            run_process({SKILLHOST_BINARY, "plugin", "new", "demo_" + lang, "--lang", lang, "--dir", project.string()});
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
        for (const auto* file : {"CMakeLists.txt", "README.md", ".gitignore"})
            EXPECT_TRUE(std::filesystem::is_regular_file(project / file)) << file;
        EXPECT_TRUE(std::filesystem::is_regular_file(project / ("src/demo_" + lang + (lang == "c" ? ".c" : ".cpp"))));
        EXPECT_TRUE(std::filesystem::is_regular_file(project / ("tests/demo_" + lang + "_test.cpp")));
        const auto manifest = project / ("demo_" + lang + ".yaml");
        auto valid = run_process(
            {SKILLHOST_BINARY, "plugin", "validate", manifest.string(), "--library", "libdemo_" + lang + ".so"});
        EXPECT_EQ(valid.exit_code, 0) << valid.err;
        EXPECT_EQ(valid.err, "") << "the generated manifest needs no note either";
        EXPECT_NE(r.out.find("demo_" + lang + "_hello"), std::string::npos) << r.out;
    }
    auto again =
        run_process({SKILLHOST_BINARY, "plugin", "new", "demo_c", "--lang", "c", "--dir", (dir / "demo_c").string()});
    EXPECT_EQ(again.exit_code, 2);
    EXPECT_NE(again.err.find("DIRECTORY_NOT_EMPTY"), std::string::npos) << again.err;
    auto bad_name =
        run_process({SKILLHOST_BINARY, "plugin", "new", "My-Plugin", "--lang", "c", "--dir", (dir / "x").string()});
    EXPECT_EQ(bad_name.exit_code, 2);
    EXPECT_NE(bad_name.err.find("INVALID_PLUGIN_NAME"), std::string::npos) << bad_name.err;
    auto bad_lang =
        run_process({SKILLHOST_BINARY, "plugin", "new", "demo", "--lang", "rust", "--dir", (dir / "y").string()});
    EXPECT_EQ(bad_lang.exit_code, 2);
    EXPECT_NE(bad_lang.err.find("INVALID_LANGUAGE"), std::string::npos) << bad_lang.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "x"));
    EXPECT_FALSE(std::filesystem::exists(dir / "y"));
}

TEST(CliPluginValidate, ListsEveryProblemCompilerStyleAndNotesAMissingRisk) {
    TempDir dir{"skillhost-plugin-validate"};
    const auto broken = dir / "broken.yaml";
    write_file(broken,
               "name: broken\nversion: 1.0.0\nlibrary: libbroken.so\nabi_version: \"1.1\"\nskills:\n"
               "  - id: one\n    description: first\n    risk: extreme\n    cost: nothing\n");
    auto r = run_process({SKILLHOST_BINARY, "plugin", "validate", broken.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find(broken.string() + ":8:11: error: skills[0].risk"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(broken.string() + ":9:11: error: skills[0].cost"), std::string::npos) << r.err;

    const auto riskless = dir / "riskless.yaml";
    write_file(riskless,
               "name: riskless\nversion: 1.0.0\nlibrary: libriskless.so\nabi_version: \"1.1\"\nskills:\n"
               "  - id: one\n    description: first\n");
    auto note = run_process({SKILLHOST_BINARY, "plugin", "validate", riskless.string()});
    EXPECT_EQ(note.exit_code, 0) << note.err;
    EXPECT_NE(note.err.find("note: skill 'one' has no risk, so it is medium"), std::string::npos) << note.err;
    auto library = run_process({SKILLHOST_BINARY, "plugin", "validate", riskless.string(), "--library", "libother.so"});
    EXPECT_EQ(library.exit_code, 1);
    EXPECT_NE(library.err.find("library: the manifest names 'libriskless.so'"), std::string::npos) << library.err;
}

TEST_F(CliTest, HelpAndUsageErrors) {
    auto help = run_process({SKILLHOST_BINARY, "--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.out.find("call"), std::string::npos);
    auto unknown = run_process({SKILLHOST_BINARY, "frobnicate"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("error: USAGE"), std::string::npos) << unknown.err;
}

}  // namespace
