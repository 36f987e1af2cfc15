// What a plugin's prompts extension answers is checked before a client sees it: hostile, broken
// and oversized answers become PLUGIN_INVALID_RESULT naming the member at fault, never a response.
#include "exec/prompt_reply_check.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace skillhost::exec;

const PromptReplySource kSource{"notes", "list()"};

template <typename T>
std::string problem_of(const skillhost::Result<T>& r) {
    if (r) return "";
    EXPECT_EQ(r.error().code, "PLUGIN_INVALID_RESULT");
    EXPECT_NE(r.error().message.find("plugin 'notes'"), std::string::npos) << r.error().message;
    return r.error().message;
}

bool names(const std::string& problem, const std::string& what) {
    return problem.find(what) != std::string::npos;
}

TEST(PromptReplyCheck, AValidListKeepsOnlyTheMembersMcpDefinesAndTheEnums) {
    auto r = check_prompt_list(kSource, R"({"prompts":[{"name":"plan","description":"Plan a week","evil":1,
        "arguments":[{"name":"days","required":true,"enum":["5","7"],"x":2}]}]})");
    ASSERT_TRUE(r) << r.error().message;
    const auto& prompt = r->at(0).as_object();
    EXPECT_EQ(prompt.at("name"), "plan");
    EXPECT_FALSE(prompt.contains("evil"));
    const auto& argument = prompt.at("arguments").at(0).as_object();
    EXPECT_EQ(argument.at("required"), true);
    EXPECT_EQ(argument.at("enum").as_array().size(), 2u);
    EXPECT_FALSE(argument.contains("x"));
    // A prompt without arguments gets an empty list.
    auto bare = check_prompt_list(kSource, R"({"prompts":[{"name":"p"}]})");
    ASSERT_TRUE(bare);
    EXPECT_TRUE(bare->at(0).at("arguments").as_array().empty());
}

TEST(PromptReplyCheck, BrokenListsNameWhatIsWrong) {
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, "not json")), "not JSON"));
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, "[1]")), "not an object"));
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, R"({"items":[]})")), "\"prompts\""));
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, R"({"prompts":[7]})")), "prompts[0] not an object"));
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, R"({"prompts":[{"name":""}]})")), "prompts[0].name"));
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, R"({"prompts":[{"name":"a\nb"}]})")), "prompts[0].name"));
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, R"({"prompts":[{"name":"a"},{"name":"a"}]})")),
                      "two prompts named 'a'"));
    EXPECT_TRUE(names(
        problem_of(check_prompt_list(kSource, R"({"prompts":[{"name":"a","arguments":[{"name":"x"},{"name":"x"}]}]})")),
        "two arguments named 'x'"));
    EXPECT_TRUE(names(
        problem_of(check_prompt_list(kSource, R"({"prompts":[{"name":"a","arguments":[{"name":"x","required":1}]}]})")),
        "arguments[0].required"));
    EXPECT_TRUE(names(
        problem_of(check_prompt_list(kSource, R"({"prompts":[{"name":"a","arguments":[{"name":"x","enum":[1]}]}]})")),
        "arguments[0].enum"));
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, R"({"prompts":[{"name":"a","description":5}]})")),
                      "prompts[0].description"));
}

TEST(PromptReplyCheck, OversizedAnswersAreRefusedNamingTheLimit) {
    std::string many = R"({"prompts":[)";
    for (std::size_t i = 0; i <= kMaxPromptsPerPlugin; ++i)
        many += (i ? "," : "") + ("{\"name\":\"p" + std::to_string(i) + "\"}");
    many += "]}";
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, many)), "limit of 1000"));
    const std::string long_name = R"({"prompts":[{"name":")" + std::string(kMaxPromptNameBytes + 1, 'n') + "\"}]}";
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, long_name)), "prompts[0].name"));
    std::string arguments = R"({"prompts":[{"name":"a","arguments":[)";
    for (std::size_t i = 0; i <= kMaxPromptArguments; ++i)
        arguments += (i ? "," : "") + ("{\"name\":\"x" + std::to_string(i) + "\"}");
    arguments += "]}]}";
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, arguments)), "prompts[0].arguments"));
    const std::string huge =
        R"({"prompts":[{"name":"a","description":")" + std::string(kMaxPromptAnswerBytes, 'd') + "\"}]}";
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, huge)), "limit of"));
    // Deep nesting is refused by the parser's depth limit, not by recursion running away.
    const std::string deep = R"({"prompts":[{"name":"a","description":)" + std::string(100000, '[') + "}]}";
    EXPECT_TRUE(names(problem_of(check_prompt_list(kSource, deep)), "not JSON"));
}

TEST(PromptReplyCheck, MessagesAreContentItemsWithAUserOrAssistantRole) {
    auto ok = check_prompt_messages(kSource, R"({"description":"d","messages":[
        {"role":"user","content":{"type":"text","text":"hi"}},
        {"role":"assistant","content":{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}},
        {"role":"user","content":{"type":"resource","resource":{"uri":"test://x","text":"t"}}}]})");
    ASSERT_TRUE(ok) << ok.error().message;
    EXPECT_EQ(ok->at("messages").as_array().size(), 3u);
    EXPECT_EQ(ok->at("description"), "d");

    EXPECT_TRUE(names(problem_of(check_prompt_messages(kSource, R"({"messages":{}})")), "\"messages\""));
    EXPECT_TRUE(names(problem_of(check_prompt_messages(
                          kSource, R"({"messages":[{"role":"system","content":{"type":"text","text":"x"}}]})")),
                      "messages[0].role"));
    EXPECT_TRUE(names(problem_of(check_prompt_messages(kSource, R"({"messages":[{"role":"user","content":"x"}]})")),
                      "messages[0].content"));
    EXPECT_TRUE(names(problem_of(check_prompt_messages(
                          kSource, R"({"messages":[{"role":"user","content":{"type":"image","data":"%%%"}}]})")),
                      "messages[0].content not a content item"));
    std::string many = R"({"messages":[)";
    for (std::size_t i = 0; i <= kMaxPromptMessages; ++i)
        many += std::string(i ? "," : "") + R"({"role":"user","content":{"type":"text","text":"x"}})";
    many += "]}";
    EXPECT_TRUE(names(problem_of(check_prompt_messages(kSource, many)), "limit of"));
}

TEST(PromptReplyCheck, CompletionsAreBoundedStringsWithAnOptionalTotal) {
    auto ok = check_completion(kSource, R"({"values":["a","b"],"total":10,"hasMore":true,"x":1})");
    ASSERT_TRUE(ok) << ok.error().message;
    EXPECT_EQ(ok->at("total"), 10);
    EXPECT_FALSE(ok->contains("x"));
    EXPECT_TRUE(names(problem_of(check_completion(kSource, R"({"values":[1]})")), "values"));
    EXPECT_TRUE(names(problem_of(check_completion(kSource, R"({"values":[],"total":-1})")), "negative total"));
    EXPECT_TRUE(names(problem_of(check_completion(kSource, R"({"values":[],"hasMore":"yes"})")), "hasMore"));
    std::string many = R"({"values":[)";
    for (std::size_t i = 0; i <= kMaxCompletionValues; ++i) many += std::string(i ? "," : "") + "\"v\"";
    many += "]}";
    EXPECT_TRUE(names(problem_of(check_completion(kSource, many)), "limit of 100"));
    const std::string long_value = R"({"values":[")" + std::string(kMaxCompletionValueBytes + 1, 'v') + "\"]}";
    EXPECT_TRUE(names(problem_of(check_completion(kSource, long_value)), "at most 1024 bytes"));
}

}  // namespace
