// The elicitation form a skill sends (every MCP 2025-11-25 field form, SEP-1330 enums included) and
// the check of the client's answer against it, with malformed and oversized schemas and answers.
#include "decisions/elicitation_form.hpp"
#include "mcp/skill_elicitation.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>

namespace json = boost::json;
using skillhost::mcp::elicitation_params;
using skillhost::mcp::read_elicitation_answer;

namespace {

// The five SEP-1330 enum forms, each with a default.
const char* kEnumForm = R"({"message": "Choose", "requestedSchema": {"type": "object", "properties": {
  "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"], "default": "option1"},
  "titledSingle": {"type": "string", "oneOf": [{"const": "value1", "title": "First"},
                                               {"const": "value2", "title": "Second"}], "default": "value2"},
  "legacyEnum": {"type": "string", "enum": ["opt1", "opt2"], "enumNames": ["One", "Two"], "default": "opt1"},
  "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    "minItems": 1, "maxItems": 2, "default": ["option1"]},
  "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "value1", "title": "First"},
                                                        {"const": "value2", "title": "Second"}]},
                  "default": ["value1", "value2"]}},
  "required": ["untitledMulti"]}})";

json::object schema_of(const std::string& request) {
    auto params = elicitation_params(request);
    EXPECT_TRUE(params.ok()) << (params ? "" : params.error().message);
    return params ? params->at("requestedSchema").as_object() : json::object{};
}

std::string request_with_field(const std::string& field) {
    return R"({"message": "m", "requestedSchema": {"type": "object", "properties": {"f": )" + field + "}}}";
}

// The code of the failure for a form holding only `field`, or "" when the form is accepted.
std::string field_error(const std::string& field) {
    auto params = elicitation_params(request_with_field(field));
    return params ? "" : params.error().code + ": " + params.error().message;
}

skillhost::Result<std::string> accept(const json::object& schema, const std::string& content) {
    return read_elicitation_answer(
        json::parse(R"({"result": {"action": "accept", "content": )" + content + "}}").as_object(), schema);
}

}  // namespace

TEST(ElicitationForm, TakesEveryEnumFormWithDefaultsAndSendsItUnchanged) {
    auto params = elicitation_params(kEnumForm);
    ASSERT_TRUE(params.ok()) << params.error().message;
    EXPECT_EQ(params->at("requestedSchema"), json::parse(kEnumForm).at("requestedSchema"));
}

TEST(ElicitationForm, AcceptsAnswersWithinEveryEnumForm) {
    const json::object schema = schema_of(kEnumForm);
    auto answer = accept(schema, R"({"untitledSingle": "option3", "titledSingle": "value1", "legacyEnum": "opt2",
                                     "untitledMulti": ["option2", "option1"], "titledMulti": ["value2"]})");
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_EQ(json::parse(*answer).at("content").at("untitledMulti"), json::parse(R"(["option2", "option1"])"));
}

TEST(ElicitationForm, RefusesAnswersOutsideTheChoices) {
    const json::object schema = schema_of(kEnumForm);
    const std::pair<const char*, const char*> cases[] = {
        {R"({"untitledMulti": ["option1"], "titledSingle": "First"})", "titledSingle"},  // a title, not a const
        {R"({"untitledMulti": ["option1"], "untitledSingle": "option9"})", "untitledSingle"},
        {R"({"untitledMulti": ["option1", "option2", "option3"]})", "at most 2"},
        {R"({"untitledMulti": []})", "at least 1"},
        {R"({"untitledMulti": ["option1", "option1"]})", "twice"},
        {R"({"untitledMulti": ["option1", 7]})", "not one of"},
        {R"({"untitledMulti": "option1"})", "must be an array"},
        {R"({"untitledMulti": ["option1"], "titledMulti": ["value1", "value2", "value1"]})", "only 2 exist"},
        {R"({"untitledMulti": ["option1"], "legacyEnum": "One"})", "legacyEnum"},
        {R"({"titledMulti": ["value1"]})", "required field \"untitledMulti\""},
        {R"({"untitledMulti": ["option1"], "extra": 1})", "\"extra\""},
    };
    for (const auto& [content, expected] : cases) {
        auto answer = accept(schema, content);
        ASSERT_FALSE(answer.ok()) << content;
        EXPECT_EQ(answer.error().code, "ELICITATION_FAILED");
        EXPECT_NE(answer.error().message.find(expected), std::string::npos) << answer.error().message;
    }
}

TEST(ElicitationForm, AHugeMultiSelectAnswerIsRefusedByCountBeforeAnyComparison) {
    const json::object schema = schema_of(kEnumForm);
    std::string many = R"({"untitledMulti": [)";
    for (int i = 0; i < 200000; ++i) many += (i ? ",\"option1\"" : "\"option1\"");
    many += "]}";
    auto answer = accept(schema, many);
    ASSERT_FALSE(answer.ok());
    EXPECT_NE(answer.error().message.find("200000 choices but only 3 exist"), std::string::npos);
}

TEST(ElicitationForm, DeclineAndCancelNeedNoContent) {
    const json::object schema = schema_of(kEnumForm);
    for (const char* action : {"decline", "cancel"}) {
        auto answer = read_elicitation_answer(
            json::parse(std::string(R"({"result": {"action": ")") + action + R"("}})").as_object(), schema);
        ASSERT_TRUE(answer.ok());
        EXPECT_EQ(json::parse(*answer), json::parse(std::string(R"({"action": ")") + action + "\"}"));
    }
}

TEST(ElicitationForm, RefusesMalformedEnumForms) {
    const std::pair<const char*, const char*> cases[] = {
        {R"({"type": "string", "enum": []})", "1 to 100"},
        {R"({"type": "string", "enum": ["a", "a"]})", "twice"},
        {R"({"type": "string", "enum": ["a", 1]})", "strings only"},
        {R"({"type": "string", "enum": ["a"], "enumNames": ["A", "B"]})", "as many values"},
        {R"({"type": "string", "enumNames": ["A"]})", "as many values"},
        {R"({"type": "string", "oneOf": [{"const": "a"}]})", "oneOf[0]"},
        {R"({"type": "string", "oneOf": [{"const": "a", "title": "A", "extra": 1}]})", "oneOf[0]"},
        {R"({"type": "string", "oneOf": [{"const": 1, "title": "A"}]})", "oneOf[0]"},
        {R"({"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "a", "title": "B"}]})", "twice"},
        {R"({"type": "string", "oneOf": [{"const": "a", "title": "A"}], "enum": ["a"]})", "both"},
        {R"({"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": "b"})", "default"},
        {R"({"type": "string", "enum": ["a"], "default": "b"})", "default"},
        {R"({"type": "array"})", "needs \"items\""},
        {R"({"type": "array", "items": {"type": "string"}})", "exactly one"},
        {R"({"type": "array", "items": {"type": "number", "enum": ["a"]}})", "\"string\""},
        {R"({"type": "array", "items": {"enum": ["a"]}})", "type"},
        {R"({"type": "array", "items": {"enum": ["a"], "type": "string", "anyOf": [{"const": "b", "title": "B"}]}})",
         "exactly one"},
        {R"({"type": "array", "items": {"type": "string", "enum": ["a"], "pattern": "x"}})", "pattern"},
        {R"({"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": 2})", "more than the 1"},
        {R"({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 2, "maxItems": 1})",
         "more than maxItems"},
        {R"({"type": "array", "items": {"type": "string", "enum": ["a"]}, "maxItems": -1})", "non-negative"},
        {R"({"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": ["b"]})", "default"},
        {R"({"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": "a"})", "default"},
        {R"({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}, "default": ["a", "a"]})",
         "twice"},
        {R"({"type": "array", "items": {"type": "string", "enum": ["a"]}, "enum": ["a"]})", "cannot have"},
        {R"({"type": "object", "properties": {}})", "needs \"type\""},
        {R"({"type": "number", "oneOf": [{"const": "a", "title": "A"}]})", "cannot have"},
        {R"({"type": "integer", "default": 1.5})", "default"},
    };
    for (const auto& [field, expected] : cases) {
        const std::string error = field_error(field);
        EXPECT_EQ(error.rfind("ELICITATION_INVALID", 0), 0u) << field << " -> " << error;
        EXPECT_NE(error.find(expected), std::string::npos) << field << " -> " << error;
    }
}

TEST(ElicitationForm, BoundsTheNumberOfChoicesAndFields) {
    std::string options;
    for (std::size_t i = 0; i <= skillhost::decisions::kMaxFormOptions; ++i)
        options += (i ? "," : "") + std::string(R"({"const": "v)") + std::to_string(i) + R"(", "title": "T"})";
    EXPECT_NE(field_error(R"({"type": "array", "items": {"anyOf": [)" + options + "]}}").find("1 to 100"),
              std::string::npos);
    std::string fields;
    for (std::size_t i = 0; i <= skillhost::decisions::kMaxFormFields; ++i)
        fields += (i ? "," : "") + std::string("\"f") + std::to_string(i) + R"(": {"type": "boolean"})";
    auto params = elicitation_params(R"({"message": "m", "requestedSchema": {"type": "object", "properties": {)" +
                                     fields + "}}}");
    ASSERT_FALSE(params.ok());
    EXPECT_NE(params.error().message.find("at most 32 fields"), std::string::npos);
    auto huge = elicitation_params(std::string(70 * 1024, ' ') + kEnumForm);
    ASSERT_FALSE(huge.ok());
    EXPECT_NE(huge.error().message.find("bytes"), std::string::npos);
}
