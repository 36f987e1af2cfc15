// What a plugin's resources extension answers is checked before a client sees it: hostile and
// broken answers become PLUGIN_INVALID_RESULT naming the member at fault, never a response.
#include "exec/resource_reply_check.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace skillhost::exec;

const ResourceReplySource kSource{"notes", "notes://", "list()"};

std::string problem_of(const skillhost::Result<boost::json::array>& r) {
    if (r) return "";
    EXPECT_EQ(r.error().code, "PLUGIN_INVALID_RESULT");
    return r.error().message;
}

TEST(ResourceReplyCheck, AValidListKeepsOnlyTheMembersMcpDefines) {
    auto r = check_resource_list(
        kSource, R"({"resources":[{"uri":"notes://a","name":"a","mimeType":"text/plain","size":3,"evil":{"x":1}}]})");
    ASSERT_TRUE(r) << r.error().message;
    const auto& item = r->at(0).as_object();
    EXPECT_EQ(item.at("uri"), "notes://a");
    EXPECT_EQ(item.at("size"), 3);
    EXPECT_FALSE(item.contains("evil"));
}

TEST(ResourceReplyCheck, BrokenListsNameWhatIsWrong) {
    EXPECT_NE(problem_of(check_resource_list(kSource, "not json")).find("not JSON"), std::string::npos);
    EXPECT_NE(problem_of(check_resource_list(kSource, R"({"items":[]})")).find("\"resources\""), std::string::npos);
    EXPECT_NE(
        problem_of(check_resource_list(kSource, R"({"resources":[{"uri":"notes://a"}]})")).find("resources[0].name"),
        std::string::npos);
    EXPECT_NE(problem_of(check_resource_list(kSource, R"({"resources":[{"uri":"file:///etc/passwd","name":"x"}]})"))
                  .find("prefix 'notes://'"),
              std::string::npos);
    EXPECT_NE(problem_of(check_resource_list(kSource, R"({"resources":[{"uri":"notes://a","name":"a","size":-1}]})"))
                  .find("size"),
              std::string::npos);
    const std::string long_uri = R"({"resources":[{"uri":"notes://)" + std::string(9000, 'a') + R"(","name":"a"}]})";
    EXPECT_FALSE(problem_of(check_resource_list(kSource, long_uri)).empty());
}

TEST(ResourceReplyCheck, TooManyResourcesAreRefusedWithTheLimit) {
    std::string many = R"({"resources":[)";
    for (std::size_t i = 0; i <= kMaxResourcesPerPlugin; ++i)
        many += std::string(i ? "," : "") + R"({"uri":"notes://)" + std::to_string(i) + R"(","name":"n"})";
    many += "]}";
    auto r = check_resource_list(kSource, many);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().details.at("limit"), kMaxResourcesPerPlugin);
}

TEST(ResourceReplyCheck, ContentsAreTextOrStandardBase64BlobsNeverBoth) {
    EXPECT_TRUE(check_resource_contents(kSource, R"({"contents":[{"uri":"notes://a","text":"hi"}]})"));
    EXPECT_TRUE(check_resource_contents(kSource, R"({"contents":[{"uri":"notes://a","blob":"AAEC/w=="}]})"));
    EXPECT_NE(problem_of(check_resource_contents(kSource, R"({"contents":[{"uri":"notes://a","blob":"AA=C"}]})"))
                  .find("base64"),
              std::string::npos);
    EXPECT_NE(problem_of(check_resource_contents(kSource, R"({"contents":[{"uri":"notes://a","blob":"A*=="}]})"))
                  .find("base64"),
              std::string::npos);
    EXPECT_NE(
        problem_of(check_resource_contents(kSource, R"({"contents":[{"uri":"notes://a","text":"x","blob":"AAAA"}]})"))
            .find("both"),
        std::string::npos);
    EXPECT_NE(problem_of(check_resource_contents(kSource, R"({"contents":[{"uri":"notes://a"}]})")).find("neither"),
              std::string::npos);
    EXPECT_NE(problem_of(check_resource_contents(kSource, R"({"contents":[]})")).find("empty"), std::string::npos);
    EXPECT_FALSE(
        problem_of(check_resource_contents(kSource, R"({"contents":[{"uri":"other://a","text":"x"}]})")).empty());
}

TEST(ResourceReplyCheck, TemplatesNeedAUriTemplateUnderThePrefixAndAName) {
    EXPECT_TRUE(
        check_resource_templates(kSource, R"({"resourceTemplates":[{"uriTemplate":"notes://{id}","name":"n"}]})"));
    EXPECT_NE(problem_of(check_resource_templates(kSource, R"({"resourceTemplates":[{"name":"n"}]})"))
                  .find("resourceTemplates[0].uriTemplate"),
              std::string::npos);
}

}  // namespace
