// The MCP Inspector's CLI mode (npm @modelcontextprotocol/inspector, pinned with the Node 22 it
// needs in inspector/package-lock.json) against `skillhost mcp` over stdio: it lists the tools and
// calls every built-in skill with valid arguments, and no result may break its tool's outputSchema
// (the Inspector refuses such a result, as the TypeScript SDK client does). See
// inspector/builtin_calls.mjs for the calls and what each result must show.
#include "mcp_fixture_home.hpp"
#include "support/subprocess.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace {

TEST(McpInspector, TheInspectorCliCallsEveryBuiltInSkillWithoutASchemaError) {
    // Trust high enough that no call waits for an approval: every skill really runs.
    skillhost::testing::McpFixtureHome home("users:\n  - {id: owner, role: owner, trust: adaptive_auto}\n");
    for (const auto& entry : std::filesystem::directory_iterator(SKILLHOST_BUILTIN_PLUGIN_DIR))
        std::filesystem::copy_file(entry.path(), home.plugins_dir() / entry.path().filename());
    auto r = skillhost::testing::run_process({"/bin/sh", SKILLHOST_MCP_INSPECTOR_SCRIPT, SKILLHOST_MCP_INSPECTOR_CACHE,
                                              SKILLHOST_BINARY, home.config_file(), home.home_dir()},
                                             {}, {}, 100000);  // below ctest's 120 s, so a hang reports its output
    if (r.exit_code == 77) GTEST_SKIP() << "npm is not installed (outside CI only): " << r.err;
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("all checks passed: 13 skills"), std::string::npos) << r.out << r.err;
}

}  // namespace
