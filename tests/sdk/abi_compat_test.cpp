// ABI 1.1 keeps its promise to plugin authors: a plugin compiled against the frozen 1.0 header loads
// and runs unchanged, and a 1.1 plugin reaches host extensions by id, offers its own, and may use a
// wider skill element than the host knows. Both through the test kit, as an author runs them.
#include <skillhost/skill_abi.h>
#include <skillhost/testkit.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;
using skillhost::Json;
using skillhost::testkit::LoadedPluginUnderTest;
using testing::HasSubstr;

const fs::path fixtures = SKILLHOST_TEST_FIXTURES_BINARY_DIR;

TEST(Abi10Plugin, LoadsAndRunsOnThe11Host) {
    // plain_c is compiled against tests/fixtures/abi_1_0 (the 1.0 header as released).
    auto plugin = LoadedPluginUnderTest::load(fixtures / "plain_c" / "plain_c.yaml");

    auto upper = plugin.call("upper", R"({"text":"abc"})");
    ASSERT_TRUE(upper.ok) << upper.to_json();
    EXPECT_EQ(upper.result()["text"].as_string(), "ABC");

    auto count = plugin.call("count", R"({"text":"one two three"})");
    ASSERT_TRUE(count.ok) << count.to_json();
    EXPECT_EQ(count.result()["words"].as_int(), 3);
}

TEST(Abi11Plugin, FindsTheLlmExtensionAndNotAnUnknownOne) {
    auto plugin = LoadedPluginUnderTest::load(fixtures / "extensions_c" / "extensions_c.yaml");

    auto probe = plugin.call("probe");

    ASSERT_TRUE(probe.ok) << probe.to_json();
    const Json result = probe.result();
    EXPECT_EQ(result["host_abi"].as_string(),
              std::to_string(SKILLHOST_ABI_VERSION_MAJOR) + "." + std::to_string(SKILLHOST_ABI_VERSION_MINOR));
    EXPECT_TRUE(result["llm"].as_bool());
    EXPECT_TRUE(result["llm_same_as_member"].as_bool());
    EXPECT_FALSE(result["unknown"].as_bool());
}

TEST(Abi11Plugin, CompletesThroughTheExtensionWithTheMembersErrors) {
    // The test kit's host has no model: the extension answers exactly as the 1.0 member would.
    auto plugin = LoadedPluginUnderTest::load(fixtures / "extensions_c" / "extensions_c.yaml");

    auto answer = plugin.call("ask_model");

    ASSERT_FALSE(answer.ok);
    EXPECT_EQ(answer.error_code, "LLM_UNAVAILABLE");
    EXPECT_THAT(answer.error_message, HasSubstr("persona"));
}

TEST(Abi11Plugin, WideSkillElementsAreWalkedWithTheirStride) {
    // The fixture's skill table has a member appended after invoke; reading it with the host's
    // own sizeof(skillhost_skill) would find the second skill's id in the wrong place.
    auto plugin = LoadedPluginUnderTest::load(fixtures / "extensions_c" / "extensions_c.yaml");

    EXPECT_EQ(plugin.skill_ids(), (std::vector<std::string>{"probe", "ask_model"}));
    EXPECT_TRUE(plugin.call("probe").ok);
    EXPECT_EQ(plugin.call("ask_model").error_code, "LLM_UNAVAILABLE");
}

}  // namespace
