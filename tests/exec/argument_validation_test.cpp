#include "exec/argument_validation.hpp"
#include "manifest/manifest.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::exec {
namespace {

namespace json = boost::json;
using manifest::Schema;
using manifest::SchemaType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

Schema typed(SchemaType type) {
    Schema s;
    s.type = type;
    return s;
}

// task_create-like inputs: title (required), priority (enum, default), count (integer 1..10),
// ratio (number), code (pattern), tags (array of string), filter (nested object), done (boolean).
Schema task_inputs() {
    Schema root = typed(SchemaType::object);
    Schema title = typed(SchemaType::string);
    title.description = "Short title of the task";
    Schema priority = typed(SchemaType::string);
    priority.enum_values = {json::value("low"), json::value("medium"), json::value("high")};
    priority.default_value = json::value("medium");
    Schema count = typed(SchemaType::integer);
    count.minimum = 1;
    count.maximum = 10;
    Schema ratio = typed(SchemaType::number);
    Schema code = typed(SchemaType::string);
    code.pattern = "^[A-Z]{3}-[0-9]+$";
    Schema tags = typed(SchemaType::array);
    tags.items = std::make_shared<Schema>(typed(SchemaType::string));
    Schema filter = typed(SchemaType::object);
    Schema status = typed(SchemaType::string);
    status.enum_values = {json::value("open"), json::value("closed")};
    status.default_value = json::value("open");
    filter.properties = {{"status", status}, {"owner", typed(SchemaType::string)}};
    filter.required = {"owner"};
    root.properties = {
        {"title", title}, {"priority", priority}, {"count", count},   {"ratio", ratio},
        {"code", code},   {"tags", tags},         {"filter", filter}, {"done", typed(SchemaType::boolean)}};
    root.required = {"title", "priority"};
    return root;
}

std::vector<std::string> paths(const std::vector<ArgumentProblem>& problems) {
    std::vector<std::string> out;
    for (const auto& p : problems) out.push_back(p.path);
    return out;
}

TEST(ArgumentValidation, AcceptsValidArguments) {
    auto problems = validate_arguments(
        task_inputs(), json::parse(R"({"title":"x","count":3,"ratio":0.5,"code":"ABC-12","tags":["a","b"],
                                       "filter":{"owner":"ann"},"done":true})"));
    EXPECT_TRUE(problems.empty()) << problems.front().path << ": " << problems.front().message;
}

TEST(ArgumentValidation, ReportsWrongTypesWithWhatWasGiven) {
    auto problems = validate_arguments(task_inputs(), json::parse(R"({"title":5,"done":"yes","tags":"a"})"));
    ASSERT_EQ(problems.size(), 3u);
    EXPECT_EQ(problems[0].path, "args.title");
    EXPECT_EQ(problems[0].message, "expected string, got integer 5");
    EXPECT_EQ(problems[1].path, "args.tags");
    EXPECT_EQ(problems[1].message, "expected array, got string \"a\"");
    EXPECT_EQ(problems[2].path, "args.done");
    EXPECT_EQ(problems[2].message, "expected boolean, got string \"yes\"");
}

TEST(ArgumentValidation, IntegerAcceptsWholeDoublesOnlyAndNumberAcceptsBoth) {
    const Schema schema = task_inputs();
    EXPECT_TRUE(validate_arguments(schema, json::parse(R"({"title":"x","count":4.0})")).empty());
    auto fractional = validate_arguments(schema, json::parse(R"({"title":"x","count":4.5})"));
    ASSERT_EQ(fractional.size(), 1u);
    EXPECT_EQ(fractional[0].message, "expected integer, got number 4.5");
    EXPECT_TRUE(validate_arguments(schema, json::parse(R"({"title":"x","ratio":2})")).empty());
    EXPECT_TRUE(validate_arguments(schema, json::parse(R"({"title":"x","ratio":2.25})")).empty());
}

TEST(ArgumentValidation, RequiredFieldsWithoutDefaultMustBePresent) {
    auto problems = validate_arguments(task_inputs(), json::parse("{}"));
    // priority is required but has a default, so only title is missing.
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].path, "args.title");
    EXPECT_EQ(problems[0].message, "missing required field (string: Short title of the task)");
}

TEST(ArgumentValidation, EnumNamesTheAllowedValues) {
    auto problems = validate_arguments(task_inputs(), json::parse(R"({"title":"x","priority":"urgent"})"));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].path, "args.priority");
    EXPECT_EQ(problems[0].message, "expected one of low, medium, high, got \"urgent\"");
}

TEST(ArgumentValidation, NumericEnumComparesByValue) {
    Schema schema = typed(SchemaType::object);
    Schema level = typed(SchemaType::integer);
    level.enum_values = {json::value(1), json::value(2)};
    schema.properties = {{"level", level}};
    EXPECT_TRUE(validate_arguments(schema, json::parse(R"({"level":2.0})")).empty());
    auto problems = validate_arguments(schema, json::parse(R"({"level":3})"));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].message, "expected one of 1, 2, got 3");
}

TEST(ArgumentValidation, MinimumAndMaximum) {
    const Schema schema = task_inputs();
    auto low = validate_arguments(schema, json::parse(R"({"title":"x","count":0})"));
    ASSERT_EQ(low.size(), 1u);
    EXPECT_EQ(low[0].message, "must be at least 1, got 0");
    auto high = validate_arguments(schema, json::parse(R"({"title":"x","count":11})"));
    ASSERT_EQ(high.size(), 1u);
    EXPECT_EQ(high[0].message, "must be at most 10, got 11");
    EXPECT_TRUE(validate_arguments(schema, json::parse(R"({"title":"x","count":10})")).empty());
}

TEST(ArgumentValidation, PatternIsSearchedNotAnchored) {
    Schema schema = typed(SchemaType::object);
    Schema word = typed(SchemaType::string);
    word.pattern = "b+";
    schema.properties = {{"word", word}};
    EXPECT_TRUE(validate_arguments(schema, json::parse(R"({"word":"abba"})")).empty());
    auto problems = validate_arguments(schema, json::parse(R"({"word":"aaa"})"));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].message, "must match the pattern /b+/, got \"aaa\"");

    auto anchored = validate_arguments(task_inputs(), json::parse(R"({"title":"x","code":"xABC-1"})"));
    ASSERT_EQ(anchored.size(), 1u);
    EXPECT_EQ(anchored[0].path, "args.code");
}

TEST(ArgumentValidation, InvalidManifestPatternIsReportedNotThrown) {
    Schema schema = typed(SchemaType::object);
    Schema word = typed(SchemaType::string);
    word.pattern = "([unclosed";
    schema.properties = {{"word", word}};
    auto problems = validate_arguments(schema, json::parse(R"({"word":"a"})"));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_THAT(problems[0].message, HasSubstr("cannot be used"));
    EXPECT_THAT(problems[0].message, HasSubstr("report this to the plugin author"));
}

TEST(ArgumentValidation, PatternsMatchInLinearTimeOnHostileInput) {
    // Patterns that make a backtracking engine run for ages or overflow its stack, on long input.
    // Each must simply answer; a recursive matcher would crash here.
    for (const char* pattern : {"^(a+)+$", "^(a|aa)*$", "^(a|a?)+b$", "(x+x+)+y"}) {
        Schema schema = typed(SchemaType::object);
        Schema word = typed(SchemaType::string);
        word.pattern = pattern;
        schema.properties = {{"word", word}};
        const std::string hostile = std::string(200000, 'a') + "!";
        auto problems = validate_arguments(schema, json::object{{"word", hostile}});
        ASSERT_EQ(problems.size(), 1u) << pattern;
        EXPECT_THAT(problems[0].message, HasSubstr("must match the pattern")) << pattern;
    }
}

TEST(ArgumentValidation, ALongValueIsShownShortenedInTheProblem) {
    Schema schema = typed(SchemaType::object);
    Schema word = typed(SchemaType::string);
    word.pattern = "^b";
    schema.properties = {{"word", word}};
    auto problems = validate_arguments(schema, json::object{{"word", std::string(100000, 'a')}});
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_LT(problems[0].message.size(), 1000u);
}

TEST(ArgumentValidation, ArrayItemsAreCheckedWithTheirIndex) {
    auto problems = validate_arguments(task_inputs(), json::parse(R"({"title":"x","tags":["a",2,"c",false]})"));
    EXPECT_THAT(paths(problems), ElementsAre("args.tags[1]", "args.tags[3]"));
}

TEST(ArgumentValidation, NestedObjectsAreCheckedRecursively) {
    auto problems =
        validate_arguments(task_inputs(), json::parse(R"({"title":"x","filter":{"status":"gone","ownr":"ann"}})"));
    ASSERT_EQ(problems.size(), 3u);
    EXPECT_EQ(problems[0].path, "args.filter.status");
    EXPECT_EQ(problems[1].path, "args.filter.owner");
    EXPECT_THAT(problems[1].message, HasSubstr("missing required field"));
    EXPECT_EQ(problems[2].path, "args.filter.ownr");
    EXPECT_EQ(problems[2].message, "unknown field; accepted fields: status, owner (did you mean \"owner\"?)");
}

TEST(ArgumentValidation, UnknownFieldsListTheAllowedOnesAndSuggestNearMisses) {
    auto problems = validate_arguments(task_inputs(), json::parse(R"({"title":"x","prority":"low","zzz":1})"));
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_EQ(problems[0].path, "args.prority");
    EXPECT_EQ(problems[0].message,
              "unknown field; accepted fields: title, priority, count, ratio, code, tags, filter, done "
              "(did you mean \"priority\"?)");
    EXPECT_EQ(problems[1].path, "args.zzz");
    EXPECT_THAT(problems[1].message, Not(HasSubstr("did you mean")));
}

TEST(ArgumentValidation, SkillWithoutInputsRejectsAnyField) {
    auto problems = validate_arguments(typed(SchemaType::object), json::parse(R"({"x":1})"));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].message, "unknown field; this takes no fields");
}

TEST(ArgumentValidation, NullArgumentsCountAsEmptyObjectButOtherNonObjectsDoNot) {
    EXPECT_TRUE(validate_arguments(typed(SchemaType::object), json::value(nullptr)).empty());
    auto problems = validate_arguments(typed(SchemaType::object), json::parse("[1]"));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].path, "args");
    EXPECT_EQ(problems[0].message, "expected an object of named arguments, got array [1]");
}

TEST(ApplyDefaults, FillsAbsentFieldsRecursivelyAndKeepsGivenOnes) {
    auto out = apply_defaults(task_inputs(), json::parse(R"({"title":"x","filter":{"owner":"ann"}})"));
    EXPECT_EQ(out, json::parse(R"({"title":"x","filter":{"owner":"ann","status":"open"},"priority":"medium"})"));
    auto kept = apply_defaults(task_inputs(), json::parse(R"({"title":"x","priority":"low"})"));
    EXPECT_EQ(kept.at("priority"), "low");
    EXPECT_FALSE(kept.as_object().contains("filter"));
}

TEST(ApplyDefaults, NullBecomesAnObjectOfDefaults) {
    EXPECT_EQ(apply_defaults(task_inputs(), json::value(nullptr)), json::parse(R"({"priority":"medium"})"));
}

TEST(PrepareArguments, ErrorNamesTheSkillTheFirstProblemAndListsEverything) {
    auto prepared = prepare_arguments("task_create", task_inputs(),
                                      json::parse(R"({"title":"x","priority":"urgent","count":"many"})"));
    ASSERT_FALSE(prepared.ok());
    const Error& error = prepared.error();
    EXPECT_EQ(error.code, "INVALID_ARGS");
    EXPECT_THAT(error.message,
                testing::StartsWith("task_create: args.priority: expected one of low, medium, high, got \"urgent\""));
    EXPECT_THAT(error.message, HasSubstr("1 more problem"));
    ASSERT_EQ(error.details.at("problems").as_array().size(), 2u);
    EXPECT_EQ(error.details.at("problems").as_array()[1].at("path"), "args.count");
    EXPECT_EQ(error.details.at("accepted_fields"),
              json::parse(R"(["title","priority","count","ratio","code","tags","filter","done"])"));
    ASSERT_FALSE(error.suggestions.empty());
    EXPECT_THAT(error.suggestions[0], HasSubstr("task_create takes: title (string, required)"));
    EXPECT_THAT(error.suggestions[0], HasSubstr("priority (string: low|medium|high, default \"medium\")"));
}

TEST(PrepareArguments, SuccessReturnsArgumentsWithDefaults) {
    auto prepared = prepare_arguments("task_create", task_inputs(), json::parse(R"({"title":"x"})"));
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    EXPECT_EQ(*prepared, json::parse(R"({"title":"x","priority":"medium"})"));
}

TEST(PrepareArguments, NonObjectArgumentsAreInvalid) {
    auto prepared = prepare_arguments("noop", typed(SchemaType::object), json::value("hello"));
    ASSERT_FALSE(prepared.ok());
    EXPECT_EQ(prepared.error().code, "INVALID_ARGS");
    EXPECT_THAT(prepared.error().message, HasSubstr("noop: args: expected an object of named arguments"));
    EXPECT_THAT(prepared.error().suggestions[0], HasSubstr("noop takes no arguments"));
}

TEST(ArgumentValidation, NullIsAcceptedOnlyWhereTheSchemaSaysNullable) {
    Schema root = typed(SchemaType::object);
    Schema due = typed(SchemaType::string);
    due.nullable = true;
    root.properties = {{"due", due}, {"title", typed(SchemaType::string)}};
    EXPECT_TRUE(validate_arguments(root, json::parse(R"({"due": null, "title": "x"})")).empty());
    const auto problems = validate_arguments(root, json::parse(R"({"due": "2026-01-01", "title": null})"));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].path, "args.title");
    EXPECT_EQ(problems[0].message, "expected string, got null");
    const auto wrong = validate_arguments(root, json::parse(R"({"due": 3})"));
    ASSERT_EQ(wrong.size(), 1u);
    EXPECT_EQ(wrong[0].message, "expected string or null, got integer 3");
}

// Results are checked like arguments, except that objects may carry fields the schema does not
// list (JSON Schema's default, which is what MCP clients apply to structured results).
TEST(ResultValidation, DeclaredFieldsMustHoldAndUndeclaredOnesMayBeAdded) {
    Schema item = typed(SchemaType::object);
    Schema due = typed(SchemaType::string);
    item.properties = {{"id", typed(SchemaType::integer)}, {"due", due}};
    item.required = {"id"};
    Schema outputs = typed(SchemaType::object);
    Schema tasks = typed(SchemaType::array);
    tasks.items = std::make_shared<Schema>(item);
    outputs.properties = {{"tasks", tasks}};

    EXPECT_TRUE(validate_result(outputs, json::parse(R"({"tasks": [{"id": 1, "due": "x", "extra": true}],
                                                         "count": 1})"))
                    .empty());
    const auto problems = validate_result(outputs, json::parse(R"({"tasks": [{"id": 1}, {"due": null}]})"));
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_EQ(problems[0].path, "result.tasks[1].id");
    EXPECT_THAT(problems[0].message, HasSubstr("missing required field"));
    EXPECT_EQ(problems[1].path, "result.tasks[1].due");
    EXPECT_EQ(problems[1].message, "expected string, got null");

    auto status = check_result("task_list", "tasks", outputs, json::parse(R"({"tasks": [{"id": "one"}]})"));
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, "PLUGIN_INVALID_RESULT");
    EXPECT_THAT(status.error().message, HasSubstr("result.tasks[0].id: expected integer, got string \"one\""));
    EXPECT_THAT(status.error().message, HasSubstr("plugin 'tasks'"));
    EXPECT_EQ(status.error().details.at("problems").as_array().size(), 1u);
}

// A property written as `$ref: "#/$defs/NAME"` is checked against that definition, at any depth.
TEST(ArgumentValidation, ReferencedDefinitionsAreEnforced) {
    auto manifest = manifest::parse_manifest(
        "name: demo\nversion: 1.0.0\nlibrary: libdemo.so\nabi_version: \"1.0\"\n"
        "skills:\n  - id: draw\n    description: Draws\n    inputs:\n"
        "      $defs: {point: {properties: {x: {type: number}}, required: [x]}}\n"
        "      properties: {at: {$ref: \"#/$defs/point\"}, "
        "path: {type: array, items: {$ref: \"#/$defs/point\"}}}\n",
        "test.yaml");
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    const Schema& inputs = manifest->skills.at(0).inputs;
    EXPECT_TRUE(validate_arguments(inputs, json::parse(R"({"at":{"x":1},"path":[{"x":2.5}]})")).empty());
    std::vector<std::string> paths;
    for (const auto& problem : validate_arguments(inputs, json::parse(R"({"at":{"x":"1"},"path":[{"x":2},{"y":3}]})")))
        paths.push_back(problem.path);
    EXPECT_THAT(paths, ::testing::UnorderedElementsAre("args.at.x", "args.path[1].y", "args.path[1].x"));
}

}  // namespace
}  // namespace skillhost::exec
