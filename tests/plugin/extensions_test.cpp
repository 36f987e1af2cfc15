// Plugin-side extensions (ABI 1.1) as the host sees them, and a 1.0-built plugin beside them.
#include "plugin_test_support.hpp"

#include <gtest/gtest.h>

#include <skillhost/skill_abi.h>

#include <string>

namespace skillhost::plugin::testing {
namespace {

using ExtensionsTest = LoaderTest;

TEST_F(ExtensionsTest, HostReadsThePluginInfoExtension) {
    auto plugin = load_fixture("extensions_c");
    ASSERT_NE(plugin, nullptr);

    const auto* info = static_cast<const skillhost_plugin_info_v1*>(plugin->extension(SKILLHOST_EXT_PLUGIN_INFO));

    ASSERT_NE(info, nullptr);
    EXPECT_EQ(std::string(info->description), "Exercises the ABI 1.1 extensions.");
    EXPECT_EQ(std::string(info->homepage), "https://example.invalid/ext");
    EXPECT_EQ(plugin->abi_version().minor, 1u);
}

TEST_F(ExtensionsTest, UnknownIdsAndOldPluginsOfferNothing) {
    auto wide = load_fixture("extensions_c");
    auto old = load_fixture("plain_c");
    ASSERT_NE(wide, nullptr);
    ASSERT_NE(old, nullptr);

    EXPECT_EQ(wide->extension("skillhost.plugin_info/2"), nullptr);
    EXPECT_EQ(wide->extension(""), nullptr);
    // plain_c was compiled against the frozen 1.0 header: its descriptor ends before get_extension.
    EXPECT_EQ(old->extension(SKILLHOST_EXT_PLUGIN_INFO), nullptr);
    EXPECT_EQ(old->abi_version().major, 1u);
    EXPECT_EQ(old->abi_version().minor, 0u);
}

TEST_F(ExtensionsTest, HostServicesAnswerExtensionLookups) {
    auto plugin = load_fixture("extensions_c");
    ASSERT_NE(plugin, nullptr);

    RawOutcome outcome = plugin->invoke(context("probe"), "{}");

    ASSERT_EQ(outcome.written, RawOutcome::Written::result) << outcome.error_message;
    const auto result = parse(outcome.result_json).as_object();
    EXPECT_TRUE(result.at("llm").as_bool());
    EXPECT_FALSE(result.at("unknown").as_bool());
}

}  // namespace
}  // namespace skillhost::plugin::testing
