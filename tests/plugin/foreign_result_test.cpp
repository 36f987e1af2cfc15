// What a foreign MCP server's CallToolResult becomes: its structured content or its text as the
// result, isError as UPSTREAM_TOOL_ERROR with the server's words (bounded), every block passed on
// as content, and links to files the call's path rules withhold replaced by a note.
#include "plugin/call_control.hpp"
#include "plugin/foreign_result.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace skillhost::plugin {
namespace {
namespace json = boost::json;

json::object tool_result(std::string_view text) {
    return json::parse(text).as_object();
}

TEST(ForeignResult, FileUrisArePercentDecodedAndOtherUrisAreNotFiles) {
    EXPECT_EQ(file_path_of("file:///a/b%20c"), "/a/b c");
    EXPECT_EQ(file_path_of("file://localhost/etc/hosts"), "/etc/hosts");
    EXPECT_EQ(file_path_of("file:///x%2Fy%2e%2E"), "/x/y..");
    // A broken escape stays as written rather than swallowing what follows.
    EXPECT_EQ(file_path_of("file:///a%zz%4"), "/a%zz%4");
    EXPECT_EQ(file_path_of("file://"), std::nullopt);
    EXPECT_EQ(file_path_of("https://example.com/a"), std::nullopt);
    EXPECT_EQ(file_path_of("FILE:///a"), std::nullopt);
}

TEST(ForeignResult, StructuredContentIsTheResultAndEveryBlockIsPassedOn) {
    CallControl control;
    RawOutcome out = outcome_of_tool_result(
        tool_result(
            R"({"content":[{"type":"text","text":"{\"n\":3}"},{"type":"image","data":"AA==","mimeType":"image/png"}],
                        "structuredContent":{"n":3}})"),
        &control);
    EXPECT_EQ(out.status, SKILLHOST_STATUS_OK);
    ASSERT_EQ(out.written, RawOutcome::Written::result);
    EXPECT_EQ(json::parse(out.result_json), json::parse(R"({"n":3})"));
    json::array content = control.content.take();
    ASSERT_EQ(content.size(), 2u);
    EXPECT_EQ(content[1].at("type"), "image");
}

TEST(ForeignResult, WithoutStructuredContentTheTextBlocksAreJoined) {
    RawOutcome out = outcome_of_tool_result(
        tool_result(R"({"content":[{"type":"text","text":"first"},{"type":"image","data":"AA==","mimeType":"image/png"},
                                   {"type":"text","text":"second"},{"type":"text","text":7},"not a block"]})"),
        nullptr);
    ASSERT_EQ(out.written, RawOutcome::Written::result);
    EXPECT_EQ(json::parse(out.result_json), json::parse(R"({"text":"first\nsecond"})"));
}

TEST(ForeignResult, IsErrorBecomesAnUpstreamToolErrorInTheServersBoundedWords) {
    RawOutcome out = outcome_of_tool_result(
        tool_result(R"({"content":[{"type":"text","text":"no such repository"}],"isError":true})"), nullptr);
    ASSERT_EQ(out.written, RawOutcome::Written::error);
    EXPECT_EQ(out.error_code, "UPSTREAM_TOOL_ERROR");
    EXPECT_EQ(out.error_message, "no such repository");
    EXPECT_EQ(json::parse(out.error_details_json).at("content").as_array().size(), 1u);

    json::object long_error{{"content", json::array{json::object{{"type", "text"}, {"text", std::string(5000, 'x')}}}},
                            {"isError", true}};
    out = outcome_of_tool_result(long_error, nullptr);
    std::string bounded(2000, 'x');
    bounded += "...";
    EXPECT_EQ(out.error_message, bounded);

    out = outcome_of_tool_result(tool_result(R"({"content":[],"isError":true})"), nullptr);
    EXPECT_EQ(out.error_message, "the tool reported an error without a message");
}

TEST(ForeignResult, LinksToWithheldFilesAreReplacedByANoteAndOthersKept) {
    CallControl control;
    control.path_allowed = [](std::string_view path) { return !path.starts_with("/secret"); };
    RawOutcome out = outcome_of_tool_result(tool_result(R"({"content":[
        {"type":"resource_link","uri":"file:///secret/key.pem","name":"key"},
        {"type":"resource","resource":{"uri":"file:///secret%2Fnotes.txt","text":"the notes"}},
        {"type":"resource_link","uri":"file:///work/report.md","name":"report"},
        {"type":"resource_link","uri":"https://example.com/secret","name":"web"}]})"),
                                            &control);
    ASSERT_EQ(out.written, RawOutcome::Written::result);
    json::array content = control.content.take();
    ASSERT_EQ(content.size(), 4u);
    for (std::size_t i : {0u, 1u}) {
        EXPECT_EQ(content[i].at("type"), "text") << i;
        EXPECT_NE(std::string(content[i].at("text").as_string()).find("[withheld: "), std::string::npos) << i;
        EXPECT_EQ(json::serialize(content[i]).find("the notes"), std::string::npos) << i;
    }
    EXPECT_EQ(content[2].at("uri"), "file:///work/report.md");
    EXPECT_EQ(content[3].at("uri"), "https://example.com/secret");
}

}  // namespace
}  // namespace skillhost::plugin
