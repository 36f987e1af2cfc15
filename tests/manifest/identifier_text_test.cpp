// The name shapes a manifest declares, checked without a regex engine.
#include "manifest/identifier_text.hpp"
#include "manifest/pattern.hpp"

#include <gtest/gtest.h>

#include <string>

namespace skillhost::manifest {
namespace {

TEST(IdentifierText, SkillIds) {
    EXPECT_TRUE(is_skill_id("task_list"));
    EXPECT_TRUE(is_skill_id("a"));
    EXPECT_TRUE(is_skill_id("fs2_read"));
    EXPECT_FALSE(is_skill_id(""));
    EXPECT_FALSE(is_skill_id("2fs"));
    EXPECT_FALSE(is_skill_id("Task"));
    EXPECT_FALSE(is_skill_id("task-list"));
    EXPECT_FALSE(is_skill_id("_task"));
}

TEST(IdentifierText, PluginNamesAllowDashes) {
    EXPECT_TRUE(is_plugin_name("conversational_response"));
    EXPECT_TRUE(is_plugin_name("my-plugin2"));
    EXPECT_FALSE(is_plugin_name("-plugin"));
    EXPECT_FALSE(is_plugin_name("Plugin"));
    EXPECT_FALSE(is_plugin_name("a b"));
}

TEST(IdentifierText, ErrorCodes) {
    EXPECT_TRUE(is_error_code("TASK_NOT_FOUND"));
    EXPECT_TRUE(is_error_code("E2"));
    EXPECT_FALSE(is_error_code("task_not_found"));
    EXPECT_FALSE(is_error_code("_X"));
    EXPECT_FALSE(is_error_code(""));
}

TEST(IdentifierText, MajorMinor) {
    auto version = parse_major_minor("1.10");
    ASSERT_TRUE(version);
    EXPECT_EQ(version->major, 1u);
    EXPECT_EQ(version->minor, 10u);
    EXPECT_FALSE(parse_major_minor("1"));
    EXPECT_FALSE(parse_major_minor("1."));
    EXPECT_FALSE(parse_major_minor(".1"));
    EXPECT_FALSE(parse_major_minor("1.0.0"));
    EXPECT_FALSE(parse_major_minor("1.x"));
    EXPECT_FALSE(parse_major_minor("1234567890.0"));  // more than 9 digits
    EXPECT_FALSE(parse_major_minor(std::string(100000, '1') + ".0"));
}

TEST(ManifestPattern, SearchesAnywhereLikeJsonSchema) {
    auto pattern = Pattern::compile("b+");
    ASSERT_TRUE(pattern.ok()) << pattern.error().message;
    EXPECT_TRUE((*pattern)->found_in("abba"));
    EXPECT_FALSE((*pattern)->found_in("aaa"));
    auto anchored = Pattern::compile("^[A-Z]{3}-[0-9]+$");
    ASSERT_TRUE(anchored.ok());
    EXPECT_TRUE((*anchored)->found_in("ABC-12"));
    EXPECT_FALSE((*anchored)->found_in("xABC-12"));
}

TEST(ManifestPattern, RefusesWhatCannotRunInLinearTimeAndSaysWhy) {
    auto lookahead = Pattern::compile("(?=a)b");
    ASSERT_FALSE(lookahead.ok());
    EXPECT_EQ(lookahead.error().code, "PATTERN_INVALID");
    EXPECT_NE(lookahead.error().message.find("lookahead"), std::string::npos) << lookahead.error().message;
    EXPECT_FALSE(Pattern::compile("[a-").ok());
    EXPECT_FALSE(Pattern::compile(std::string(max_pattern_length + 1, 'a')).ok());
}

TEST(ManifestPattern, NestedQuantifiersOnLongInputAnswer) {
    auto pattern = Pattern::compile("^(a+)+$");
    ASSERT_TRUE(pattern.ok());
    EXPECT_FALSE((*pattern)->found_in(std::string(1000000, 'a') + "!"));
    EXPECT_TRUE((*pattern)->found_in(std::string(1000000, 'a')));
}

TEST(IdentifierText, TheShapesAForeignServerDeclarationNames) {
    EXPECT_TRUE(is_variable_name("GITHUB_TOKEN"));
    EXPECT_TRUE(is_variable_name("_x1"));
    EXPECT_FALSE(is_variable_name("1X"));
    EXPECT_FALSE(is_variable_name("A-B"));
    EXPECT_FALSE(is_variable_name(""));

    EXPECT_TRUE(is_header_name("X-Api-Key"));
    EXPECT_TRUE(is_header_name("a!#$%&'*+-.^_`|~"));
    EXPECT_FALSE(is_header_name("Bad Header"));
    EXPECT_FALSE(is_header_name("Host:"));
    EXPECT_TRUE(same_header("Authorization", "aUTHORIZATION"));
    EXPECT_FALSE(same_header("Authorization", "Authorizations"));

    EXPECT_TRUE(is_tool_name("read.file-v2_x"));
    EXPECT_FALSE(is_tool_name(std::string(kMaxToolName + 1, 'a')));
    EXPECT_FALSE(is_tool_name("a/b"));

    EXPECT_TRUE(is_npm_name("@modelcontextprotocol/server-memory"));
    EXPECT_TRUE(is_npm_name("left-pad"));
    EXPECT_FALSE(is_npm_name("@scope"));
    EXPECT_FALSE(is_npm_name("Upper"));
    EXPECT_FALSE(is_npm_name(".hidden"));
    EXPECT_FALSE(is_npm_name(std::string(215, 'a')));

    EXPECT_TRUE(is_exact_version("2026.8.31"));
    EXPECT_TRUE(is_exact_version("1.0.0-beta.2"));
    for (std::string_view range : {"^1.2.3", "~1.2", "1.x", ">=1", "1..2", "1.2.", "latest", "1.0.0-"})
        EXPECT_FALSE(is_exact_version(range)) << range;

    EXPECT_TRUE(is_sha512_integrity("sha512-AbC+/9=="));
    EXPECT_FALSE(is_sha512_integrity("sha512-"));
    EXPECT_FALSE(is_sha512_integrity("sha512-a=b"));
    EXPECT_FALSE(is_sha512_integrity("sha256-abc"));

    EXPECT_TRUE(has_nul(std::string_view("a\0b", 3)));
    EXPECT_TRUE(has_nul_or_line_break("a\rb"));
    EXPECT_FALSE(has_nul_or_line_break("a b"));
    EXPECT_EQ(count_of("{value}{value}", "{value}"), 2u);
    EXPECT_EQ(count_of("aaaa", "aa"), 2u);
    EXPECT_EQ(count_of("", "x"), 0u);
}

}  // namespace
}  // namespace skillhost::manifest
