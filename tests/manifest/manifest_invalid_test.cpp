// Invalid manifests: each kind of mistake is reported with its field path, line, column and a
// message that says what was expected.
#include "manifest_test_support.hpp"

#include <gtest/gtest.h>

namespace skillhost::manifest {
namespace {

using testing::only_problem;
using testing::parse;
using testing::problems_of;

// Five lines; the skills of each test start on line 6.
const std::string kHead = "name: demo\nversion: 1.0.0\nlibrary: libdemo.so\nabi_version: \"1.0\"\nskills:\n";

void expect_problem(const Result<Manifest>& result, const std::string& field, int line, int column,
                    const std::string& message_part) {
    const ManifestProblem problem = only_problem(result);
    EXPECT_EQ(problem.file, "test.yaml");
    EXPECT_EQ(problem.field, field);
    EXPECT_EQ(problem.line, line) << problem.to_string();
    EXPECT_EQ(problem.column, column) << problem.to_string();
    EXPECT_NE(problem.message.find(message_part), std::string::npos)
        << "message: " << problem.message << "\nexpected to contain: " << message_part;
    if (!result.ok()) {
        EXPECT_EQ(result.error().code, "MANIFEST_INVALID");
        EXPECT_EQ(result.error().message, problem.to_string());
    }
}

TEST(ManifestInvalid, UnknownTopLevelKeyNamesTheAllowedKeysAndTheNearMiss) {
    const auto result =
        parse("name: demo\ndescripton: x\n" + kHead.substr(11) + "  - id: ping\n    description: Pings\n");
    expect_problem(result, "descripton", 2, 1, "unknown key 'descripton' (did you mean 'description'?)");
    expect_problem(result, "descripton", 2, 1,
                   "allowed keys: name, version, description, library, abi_version, skills");
}

TEST(ManifestInvalid, UnknownSkillKey) {
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    timeout: 5\n"), "skills[0].timeout", 8, 5,
                   "(did you mean 'timeout_ms'?)");
}

TEST(ManifestInvalid, UnknownKeyWithoutANearMissListsTheAllowedKeys) {
    const ManifestProblem problem =
        only_problem(parse(kHead + "  - id: ping\n    description: Pings\n    colour: red\n"));
    EXPECT_EQ(problem.field, "skills[0].colour");
    EXPECT_EQ(problem.message.find("did you mean"), std::string::npos) << problem.message;
    EXPECT_NE(problem.message.find("allowed keys: id, title, description"), std::string::npos) << problem.message;
}

TEST(ManifestInvalid, UnknownSchemaKeyDeepInTheInputs) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        limit: {type: integer, maximun: 5}
)"),
                   "skills[0].inputs.properties.limit.maximun", 10, 32, "(did you mean 'maximum'?)");
}

TEST(ManifestInvalid, MissingRequiredTopLevelField) {
    expect_problem(
        parse("name: demo\nversion: 1.0.0\nabi_version: \"1.0\"\nskills:\n  - id: ping\n    description: Pings\n"),
        "library", 1, 1, "missing required field 'library'");
}

TEST(ManifestInvalid, MissingSkillDescription) {
    expect_problem(parse(kHead + "  - id: ping\n    title: Ping\n"), "skills[0].description", 6, 5,
                   "missing required field 'description'");
}

TEST(ManifestInvalid, EmptyDescriptionIsPositionedAtItsKey) {
    expect_problem(parse(kHead + "  - id: ping\n    description:\n    risk: low\n"), "skills[0].description", 7, 5,
                   "expected a string, got nothing");
    expect_problem(parse(kHead + "  - id: ping\n    description: \"  \"\n"), "skills[0].description", 7, 18,
                   "must not be empty");
}

TEST(ManifestInvalid, BadPluginName) {
    expect_problem(parse("name: My Plugin\n" + kHead.substr(11) + "  - id: ping\n    description: Pings\n"), "name", 1,
                   7, "pattern ^[a-z][a-z0-9_-]*$");
}

TEST(ManifestInvalid, BadSkillId) {
    expect_problem(parse(kHead + "  - id: Ping-1\n    description: Pings\n"), "skills[0].id", 6, 9,
                   "invalid skill id \"Ping-1\"");
}

TEST(ManifestInvalid, MissingSkillId) {
    expect_problem(parse(kHead + "  - description: Pings\n"), "skills[0].id", 6, 5, "missing required field 'id'");
}

TEST(ManifestInvalid, DuplicateSkillId) {
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n  - id: ping\n    description: Pings again\n"),
                   "skills[1].id", 8, 5, "duplicate skill id 'ping' (first declared at line 6)");
}

TEST(ManifestInvalid, EmptySkills) {
    expect_problem(parse(kHead.substr(0, kHead.size() - 1) + " []\n"), "skills", 5, 9, "at least one skill");
}

TEST(ManifestInvalid, SkillsNotAList) {
    expect_problem(parse(kHead + "  ping: {description: Pings}\n"), "skills", 6, 3, "expected a list, got a mapping");
}

TEST(ManifestInvalid, BadAbiVersions) {
    const std::string rest = "skills:\n  - id: ping\n    description: Pings\n";
    const std::string head = "name: demo\nversion: 1.0.0\nlibrary: libdemo.so\n";
    expect_problem(parse(head + "abi_version: 1\n" + rest), "abi_version", 4, 14, "expected \"major.minor\"");
    expect_problem(parse(head + "abi_version: v1.0\n" + rest), "abi_version", 4, 14, "got \"v1.0\"");
    expect_problem(parse(head + "abi_version: 1.0.0\n" + rest), "abi_version", 4, 14, "expected \"major.minor\"");
    expect_problem(parse(head + "abi_version: [1, 0]\n" + rest), "abi_version", 4, 14, "got a list");
    expect_problem(parse(head + rest), "abi_version", 1, 1, "missing required field 'abi_version'");
}

TEST(ManifestInvalid, WrongValueTypesSayWhatWasExpected) {
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    timeout_ms: fast\n"),
                   "skills[0].timeout_ms", 8, 17, "expected a whole number from 1 to 3600000, got \"fast\"");
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    timeout_ms: 3600001\n"),
                   "skills[0].timeout_ms", 8, 17, "out of range");
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    requires_approval: maybe\n"),
                   "skills[0].requires_approval", 8, 24, "expected true or false, got \"maybe\"");
    expect_problem(parse(kHead + "  - id: ping\n    description: [a, b]\n"), "skills[0].description", 7, 18,
                   "expected a string, got a list");
}

TEST(ManifestInvalid, UnknownEnumeratedValues) {
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    risk: hgh\n"), "skills[0].risk", 8, 11,
                   "unknown value \"hgh\" (did you mean 'high'?); expected one of low, medium, high");
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    min_trust: admin\n"), "skills[0].min_trust",
                   8, 16, "expected one of observe, suggest, supervised_auto, bounded_auto, adaptive_auto");
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    concurrency: serialized\n"),
                   "skills[0].concurrency", 8, 18, "did you mean 'serial'?");
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    cost: 3\n"), "skills[0].cost", 8, 11,
                   "expected one of free, cheap, expensive");
}

TEST(ManifestInvalid, AnnotationsAreBooleansWithKnownNames) {
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    annotations: {readonly: true}\n"),
                   "skills[0].annotations.readonly", 8, 19, "(did you mean 'read_only'?)");
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    annotations: {read_only: yes}\n"),
                   "skills[0].annotations.read_only", 8, 30, "expected true or false");
}

TEST(ManifestInvalid, RequiredNamesAnUndeclaredProperty) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        status: {type: string}
      required: [status, limt]
)"),
                   "skills[0].inputs.required[1]", 11, 26,
                   "'limt' is required but not declared under properties; declared properties: status");
}

TEST(ManifestInvalid, DefaultNotMatchingTheDeclaredType) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        limit:
          type: integer
          default: many
)"),
                   "skills[0].inputs.properties.limit.default", 12, 20, "expected an integer, got \"many\"");
}

TEST(ManifestInvalid, DefaultOutsideTheBoundsOrTheEnum) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        limit: {type: integer, minimum: 1, default: 0}
)"),
                   "skills[0].inputs.properties.limit.default", 10, 53, "0 is below the minimum 1");
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        status: {type: string, enum: [open, done], default: closed}
)"),
                   "skills[0].inputs.properties.status.default", 10, 61,
                   "\"closed\" is not one of the allowed values: \"open\", \"done\"");
}

TEST(ManifestInvalid, EnumValueNotMatchingTheDeclaredType) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        level: {type: integer, enum: [1, two, 3]}
)"),
                   "skills[0].inputs.properties.level.enum[1]", 10, 42, "expected an integer, got \"two\"");
}

TEST(ManifestInvalid, PatternThatDoesNotCompile) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        code: {type: string, pattern: "[a-"}
)"),
                   "skills[0].inputs.properties.code.pattern", 10, 39, "invalid regular expression \"[a-\"");
}

TEST(ManifestInvalid, PatternsThatCannotRunInLinearTimeAreRefusedWithWhy) {
    for (const char* pattern : {R"((?=a)b)", R"((?<=a)b)", R"((a)\1)"}) {
        const std::string manifest = kHead + "  - id: ping\n    description: Pings\n    inputs:\n      properties:\n" +
                                     "        code: {type: string, pattern: '" + pattern + "'}\n";
        auto parsed = parse(manifest);
        ASSERT_FALSE(parsed.ok()) << pattern;
        EXPECT_NE(parsed.error().message.find("skills[0].inputs.properties.code.pattern"), std::string::npos)
            << pattern;
        EXPECT_NE(parsed.error().message.find("invalid regular expression"), std::string::npos)
            << parsed.error().message;
    }
}

TEST(ManifestInvalid, KeywordThatDoesNotFitTheType) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        name: {type: string, minimum: 1}
)"),
                   "skills[0].inputs.properties.name.minimum", 10, 39,
                   "'minimum' applies only to integer and number schemas, but this schema's type is string");
}

TEST(ManifestInvalid, UnknownSchemaType) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        name: {type: str}
)"),
                   "skills[0].inputs.properties.name.type", 10, 22,
                   "unknown value \"str\"; expected one of string, integer, number, boolean, array, object, null");
}

TEST(ManifestInvalid, ATypeListOtherThanOneTypeAndNull) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        name: {type: [string, integer]}
)"),
                   "skills[0].inputs.properties.name.type", 10, 22,
                   "a list of types must be one type and \"null\", e.g. [string, \"null\"] for a string that may be "
                   "missing; got [string, integer]");
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        name: {type: [strin, "null"]}
)"),
                   "skills[0].inputs.properties.name.type[0]", 10, 23, "unknown value \"strin\"");
}

TEST(ManifestInvalid, PropertyWrittenAsABareTypeName) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        name: string
)"),
                   "skills[0].inputs.properties.name", 10, 15, "write {type: string}");
}

TEST(ManifestInvalid, InputsMustBeAnObject) {
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    inputs: {type: string}\n"),
                   "skills[0].inputs.type", 8, 20, "inputs must be an object schema");
}

TEST(ManifestInvalid, MaximumBelowMinimum) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        limit: {type: integer, minimum: 10, maximum: 5}
)"),
                   "skills[0].inputs.properties.limit.maximum", 10, 54, "maximum is below minimum");
}

TEST(ManifestInvalid, PathInputsMustBeDeclaredStringInputs) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        path: {type: string}
    path_inputs: [paht]
)"),
                   "skills[0].path_inputs[0]", 11, 19, "'paht' is not a declared input (did you mean 'path'?)");
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        depth: {type: integer}
    path_inputs: [depth]
)"),
                   "skills[0].path_inputs[0]", 11, 19, "input 'depth' has type integer");
}

TEST(ManifestInvalid, ExampleArgsNamingUndeclaredInputs) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        color: {type: string}
    examples:
      - description: Red
        args: {colour: red}
)"),
                   "skills[0].examples[0].args.colour", 13, 24,
                   "'colour' is not a declared property (did you mean 'color'?); declared properties: color");
}

TEST(ManifestInvalid, ExampleArgsMustFitTheInputs) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        count: {type: integer}
        name: {type: string}
      required: [name]
    examples:
      - args: {count: "3"}
)"),
                   "skills[0].examples[0].args", 14, 15, "missing required property 'name'");
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        count: {type: integer}
    examples:
      - args: {count: three}
)"),
                   "skills[0].examples[0].args.count", 12, 23, "expected an integer, got \"three\"");
}

TEST(ManifestInvalid, ErrorHintsNeedUpperSnakeCodesAndSuggestions) {
    expect_problem(
        parse(kHead + "  - id: ping\n    description: Pings\n    error_hints:\n      not_found: [Look it up]\n"),
        "skills[0].error_hints.not_found", 9, 18, "invalid error code \"not_found\"");
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    error_hints:\n      NOT_FOUND: []\n"),
                   "skills[0].error_hints.NOT_FOUND", 9, 18, "at least one suggestion");
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    error_hints:\n      NOT_FOUND: {a: b}\n"),
                   "skills[0].error_hints.NOT_FOUND", 9, 18, "expected a string or a list of strings");
}

TEST(ManifestInvalid, DuplicateYamlKey) {
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    risk: low\n    risk: high\n"),
                   "skills[0].risk", 9, 5, "duplicate key 'risk' (first given at line 8)");
}

TEST(ManifestInvalid, MoreThanOneYamlDocument) {
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n---\nname: other\n"), "", 9, 1,
                   "a manifest holds one YAML document, found 2");
}

TEST(ManifestInvalid, RootMustBeAMapping) {
    expect_problem(parse("- name: demo\n"), "", 1, 1, "expected a mapping");
}

// yaml-cpp 0.7 never returns on these (found by fuzzing); the reader refuses them first, with where.
TEST(ManifestInvalid, DocumentsYamlCppCannotParseAreRefusedWithAPosition) {
    struct Case {
        std::string text;
        int line, column;
    };
    for (const Case& c : std::vector<Case>{{",", 1, 1},
                                           {"# the echo fixture\n ,      text:\n", 2, 2},
                                           {"      properties:\n ,      text:\n", 2, 2},
                                           {"---\n\n  # c\n  ,", 4, 3},
                                           {"--- &a ,", 1, 8},
                                           {"!x ,", 1, 4},
                                           {"|\n,", 1, 1},
                                           {kHead + "  - id: ping\n    description: Pings\n--- ,\n", 8, 5}}) {
        const ManifestProblem problem = only_problem(parse(c.text));
        EXPECT_EQ(problem.line, c.line) << c.text << ": " << problem.to_string();
        EXPECT_EQ(problem.column, c.column) << c.text << ": " << problem.to_string();
        EXPECT_NE(problem.message.find("YAML syntax error"), std::string::npos) << problem.message;
    }
    // Inside a flow collection a line may start with ','.
    EXPECT_TRUE(parse(kHead + "  - id: ping\n    description: Pings\n    inputs: {properties: {a: {type: string}}\n"
                              "      , required: [a]}\n")
                    .ok());
}

TEST(ManifestInvalid, InlineSyntaxError) {
    const auto result = parse(kHead + "  - id: ping\n    description: Pings: twice\n");
    const ManifestProblem problem = only_problem(result);
    EXPECT_EQ(problem.field, "");
    EXPECT_EQ(problem.line, 7) << problem.to_string();
    EXPECT_EQ(problem.column, 23) << problem.to_string();
    EXPECT_NE(problem.message.find("YAML syntax error"), std::string::npos) << problem.message;
}

TEST(ManifestInvalid, UnquotedTextSplitInAFlowMappingSuggestsQuotes) {
    const auto result = parse(kHead + R"(  - id: ping
    description: Pings
    outputs:
      properties:
        message: {type: string, description: The greeting, e.g. "Hello"}
)");
    ASSERT_FALSE(result.ok());
    const auto problems = problems_of(result);
    ASSERT_EQ(problems.size(), 1u) << result.error().message;
    EXPECT_EQ(problems[0].field, "skills[0].outputs.properties.message.e.g. \"Hello\"");
    EXPECT_EQ(problems[0].line, 10);
    EXPECT_EQ(problems[0].column, 60);
    EXPECT_NE(problems[0].message.find("put the text in quotes"), std::string::npos) << problems[0].message;
}

TEST(ManifestInvalid, AllProblemsAreCollectedAcrossSkills) {
    const auto result = parse(R"yaml(name: demo
version: 1.0.0
library: libdemo.so
abi_version: "1.0"
extra: true
skills:
  - id: first
    description: First
    risk: severe
  - id: second
    inputs:
      properties:
        n: {type: integer, default: x}
  - id: first
    description: Again
)yaml");
    ASSERT_FALSE(result.ok());
    const auto problems = problems_of(result);
    ASSERT_EQ(problems.size(), 5u) << result.error().message;
    EXPECT_EQ(problems[0].field, "extra");
    EXPECT_EQ(problems[0].line, 5);
    EXPECT_EQ(problems[1].field, "skills[0].risk");
    EXPECT_EQ(problems[1].line, 9);
    EXPECT_EQ(problems[2].field, "skills[1].description");
    EXPECT_EQ(problems[2].line, 10);
    EXPECT_EQ(problems[3].field, "skills[1].inputs.properties.n.default");
    EXPECT_EQ(problems[3].line, 13);
    EXPECT_EQ(problems[4].field, "skills[2].id");
    EXPECT_EQ(problems[4].line, 14);
    EXPECT_EQ(result.error().message, problems[0].to_string() + " (and 4 more)");
}

TEST(ManifestInvalid, SchemaDialectOtherThan202012) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      $schema: http://json-schema.org/draft-07/schema#
)"),
                   "skills[0].inputs.$schema", 9, 16, "write https://json-schema.org/draft/2020-12/schema");
}

TEST(ManifestInvalid, ReferenceToAMissingDefinitionNamesTheDefinedOnes) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      $defs:
        point: {properties: {x: {type: number}}}
      properties:
        at: {$ref: "#/$defs/pont"}
)"),
                   "skills[0].inputs.properties.at.$ref", 12, 20, "defined: #/$defs/point");
}

TEST(ManifestInvalid, DefinitionsCannotReferToEachOtherOrNest) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      $defs:
        a: {type: string}
        b: {$ref: "#/$defs/a"}
)"),
                   "skills[0].inputs.$defs.b.$ref", 11, 19, "definitions may not refer to each other");
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      properties:
        p: {$defs: {a: {type: string}}}
)"),
                   "skills[0].inputs.properties.p.$defs", 10, 20, "belongs at the top");
}

TEST(ManifestInvalid, ReferenceWithSiblingKeywordsOrAsTheWholeSchema) {
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    inputs:
      $defs:
        a: {type: string}
      properties:
        p: {$ref: "#/$defs/a", type: integer}
)"),
                   "skills[0].inputs.properties.p.type", 12, 38, "cannot stand beside $ref");
    expect_problem(parse(kHead + R"(  - id: ping
    description: Pings
    outputs: {$ref: "#/$defs/a"}
)"),
                   "skills[0].outputs.$ref", 8, 21, "cannot be the whole");
}

TEST(ManifestInvalid, TooManyDefinitions) {
    std::string defs;
    for (int i = 0; i <= 64; ++i) defs += "        d" + std::to_string(i) + ": {type: string}\n";
    expect_problem(parse(kHead + "  - id: ping\n    description: Pings\n    inputs:\n      $defs:\n" + defs),
                   "skills[0].inputs.$defs", 10, 9, "more than 64");
}

}  // namespace
}  // namespace skillhost::manifest
