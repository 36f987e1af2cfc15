// hello_c's tests: the plugin is loaded exactly as the host loads it (manifest validation, ABI
// check, manifest/library agreement) and every call goes through the host's executor.
#include <skillhost/testkit_gtest.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using skillhost::testkit::LoadedPluginUnderTest;

class HelloC : public ::testing::Test {
protected:
    LoadedPluginUnderTest plugin = LoadedPluginUnderTest::load(HELLO_C_MANIFEST);
};

TEST_F(HelloC, LoadsWithBothSkills) {
    EXPECT_EQ(plugin.name(), "hello_c");
    EXPECT_EQ(plugin.version(), "1.0.0");
    EXPECT_EQ(plugin.skill_ids(), (std::vector<std::string>{"word_count", "greet"}));
}

TEST_F(HelloC, CountsWordsCharactersAndLines) {
    auto r = plugin.call("word_count", R"({"text":"hello  world\nsecond line\n"})");
    ASSERT_SKILL_OK(r);
    EXPECT_EQ(r.result()["words"].as_int(), 4);
    EXPECT_EQ(r.result()["characters"].as_int(), 25);
    EXPECT_EQ(r.result()["lines"].as_int(), 2);
}

TEST_F(HelloC, CountsUnicodeCharactersNotBytes) {
    // "héllo wörld 😀": 13 characters in 17 bytes; given once raw and once as JSON escapes.
    auto raw = plugin.call("word_count", "{\"text\":\"h\xC3\xA9llo w\xC3\xB6rld \xF0\x9F\x98\x80\"}");
    auto escaped = plugin.call("word_count", R"({"text":"h\u00e9llo w\u00f6rld \ud83d\ude00"})");
    ASSERT_SKILL_OK(raw);
    ASSERT_SKILL_OK(escaped);
    EXPECT_EQ(raw.result()["characters"].as_int(), 13);
    EXPECT_EQ(raw.result()["words"].as_int(), 3);
    EXPECT_EQ(raw.result()["lines"].as_int(), 1);
    EXPECT_EQ(escaped.result_json, raw.result_json);
}

TEST_F(HelloC, EmptyTextHasNothingToCount) {
    auto r = plugin.call("word_count", R"({"text":""})");
    ASSERT_SKILL_OK(r);
    EXPECT_EQ(r.result(), skillhost::Json::parse(R"({"words":0,"characters":0,"lines":0})"));
}

TEST_F(HelloC, MissingTextIsRejectedBeforeThePluginRuns) {
    EXPECT_SKILL_ERROR(plugin.call("word_count", "{}"), "INVALID_ARGS");
    EXPECT_SKILL_ERROR(plugin.call("word_count", R"({"text":42})"), "INVALID_ARGS");
    EXPECT_SKILL_ERROR(plugin.call("word_count", R"({"text":"a","extra":1})"), "INVALID_ARGS");
}

TEST_F(HelloC, GreetsWithTheDefaultGreeting) {
    auto r = plugin.call("greet", R"({"name":"Ada"})");
    ASSERT_SKILL_OK(r);
    EXPECT_EQ(r.result()["message"].as_string(), "Hello, Ada!");
}

TEST_F(HelloC, GreetsWithAGivenGreetingAndEscapesTheResult) {
    auto r = plugin.call("greet", R"({"name":"\"Bob\"\\\n","greeting":"Bonjour"})");
    ASSERT_SKILL_OK(r);
    EXPECT_EQ(r.result()["message"].as_string(), "Bonjour, \"Bob\"\\\n!");
}

TEST_F(HelloC, BlankNameFailsTheManifestPattern) {
    EXPECT_SKILL_ERROR(plugin.call("greet", R"({"name":"   "})"), "INVALID_ARGS");
}

TEST_F(HelloC, UnknownSkillIsAnError) {
    EXPECT_SKILL_ERROR(plugin.call("wordcount", R"({"text":"x"})"), "SKILL_NOT_FOUND");
}

TEST(HelloCLoad, AMissingManifestFailsWithTheHostsError) {
    try {
        LoadedPluginUnderTest::load(std::string(HELLO_C_MANIFEST) + ".missing");
        FAIL() << "loading a missing manifest must throw";
    } catch (const skillhost::testkit::LoadError& e) {
        EXPECT_FALSE(e.code().empty());
        EXPECT_NE(std::string(e.what()).find(".missing"), std::string::npos) << e.what();
    }
}

}  // namespace
