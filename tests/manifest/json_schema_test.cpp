// Schema::to_json_schema: the standard JSON Schema that OpenAI/Ollama `tools` and MCP need.
#include "manifest_test_support.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace skillhost::manifest {
namespace {

using testing::parse;
using testing::parsed_ok;
namespace json = boost::json;

TEST(JsonSchema, InputsBecomeAClosedObjectSchema) {
    const Manifest manifest = parsed_ok(parse(R"yaml(name: demo
version: 1.0.0
library: libdemo.so
abi_version: "1.0"
skills:
  - id: task_list
    description: Lists tasks
    inputs:
      properties:
        status: {type: string, enum: [open, done], description: Which tasks}
        limit: {type: integer, minimum: 1, maximum: 500, default: 50}
        ratio: {type: number, minimum: 0.25}
        tags: {type: array, items: {type: string, pattern: "^[a-z]+$"}}
        filter:
          properties:
            owner: {type: string}
      required: [status]
)yaml"));
    const json::value expected = json::parse(R"({
        "type": "object",
        "properties": {
            "status": {"type": "string", "description": "Which tasks", "enum": ["open", "done"]},
            "limit": {"type": "integer", "default": 50, "minimum": 1, "maximum": 500},
            "ratio": {"type": "number", "minimum": 0.25},
            "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
            "filter": {"type": "object", "properties": {"owner": {"type": "string"}},
                       "additionalProperties": false}
        },
        "required": ["status"],
        "additionalProperties": false
    })");
    EXPECT_EQ(json::value(manifest.skills.at(0).inputs.to_json_schema()), expected)
        << json::serialize(manifest.skills.at(0).inputs.to_json_schema());
    // Whole-number bounds are written as integers, as people and models expect to read them.
    EXPECT_TRUE(manifest.skills.at(0).inputs.to_json_schema().at("properties").at("limit").at("minimum").is_int64());
}

TEST(JsonSchema, EmptyInputsStillDeclareAnObjectWithProperties) {
    Schema inputs;
    inputs.type = SchemaType::object;
    EXPECT_EQ(json::value(inputs.to_json_schema()),
              json::parse(R"({"type": "object", "properties": {}, "additionalProperties": false})"));
}

TEST(JsonSchema, AnUntypedSchemaAcceptsAnything) {
    Schema any;
    EXPECT_EQ(json::value(any.to_json_schema()), json::parse("{}"));
    any.description = "whatever the skill returns";
    EXPECT_EQ(json::value(any.to_json_schema()), json::parse(R"({"description": "whatever the skill returns"})"));
}

TEST(JsonSchema, NullTypeAndArraysWithoutItems) {
    Schema nothing;
    nothing.type = SchemaType::null;
    EXPECT_EQ(json::value(nothing.to_json_schema()), json::parse(R"({"type": "null"})"));
    Schema list;
    list.type = SchemaType::array;
    EXPECT_EQ(json::value(list.to_json_schema()), json::parse(R"({"type": "array"})"));
    EXPECT_STREQ(to_string(SchemaType::boolean), "boolean");
}

// A field that may be missing is declared as [T, "null"] (or nullable: true) and published as a
// type union, so MCP and OpenAI clients validating results accept its null.
TEST(JsonSchema, NullableFieldsBecomeATypeUnionWithNull) {
    const Manifest manifest = parsed_ok(parse(R"yaml(name: demo
version: 1.0.0
library: libdemo.so
abi_version: "1.0"
skills:
  - id: task_list
    description: Lists tasks
    inputs: {}
    outputs:
      type: object
      properties:
        due: {type: [string, "null"], description: Due date or null}
        done_at: {type: "null"}
        state: {type: string, nullable: true, enum: [open, done]}
        count: {type: ["null", integer]}
)yaml"));
    const Schema& outputs = manifest.skills.at(0).outputs;
    EXPECT_TRUE(outputs.property("due")->nullable);
    EXPECT_EQ(outputs.property("due")->type, SchemaType::string);
    EXPECT_EQ(outputs.property("count")->type, SchemaType::integer);
    const json::value expected = json::parse(R"({
        "type": "object",
        "properties": {
            "due": {"type": ["string", "null"], "description": "Due date or null"},
            "done_at": {"type": "null"},
            "state": {"type": ["string", "null"], "enum": ["open", "done", null]},
            "count": {"type": ["integer", "null"]}
        }
    })");
    EXPECT_EQ(json::value(outputs.to_json_schema(false)), expected) << json::serialize(outputs.to_json_schema(false));
}

// JSON Schema 2020-12 structure ($schema, $defs, $ref) reaches clients as written (MCP tools/list,
// the suite's json-schema-2020-12 scenario), while the host validates with the definition's copy.
TEST(JsonSchema, DialectDefinitionsAndReferencesAreKeptAsWritten) {
    const Manifest manifest = parsed_ok(parse(R"yaml(name: demo
version: 1.0.0
library: libdemo.so
abi_version: "1.0"
skills:
  - id: ship
    description: Ships
    inputs:
      $schema: https://json-schema.org/draft/2020-12/schema
      $defs:
        address:
          properties:
            city: {type: string}
          required: [city]
      properties:
        from: {$ref: "#/$defs/address", description: Where it leaves}
        stops: {type: array, items: {$ref: "#/$defs/address"}}
)yaml"));
    const Schema& inputs = manifest.skills.at(0).inputs;
    const json::value expected = json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "from": {"$ref": "#/$defs/address", "description": "Where it leaves"},
            "stops": {"type": "array", "items": {"$ref": "#/$defs/address"}}
        },
        "additionalProperties": false,
        "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}},
                              "required": ["city"], "additionalProperties": false}}
    })");
    EXPECT_EQ(json::value(inputs.to_json_schema()), expected) << json::serialize(inputs.to_json_schema());
    // What validation sees: the definition itself.
    const Schema* from = inputs.property("from");
    ASSERT_NE(from, nullptr);
    EXPECT_EQ(from->type, SchemaType::object);
    EXPECT_TRUE(from->is_required("city"));
    ASSERT_NE(inputs.property("stops")->items, nullptr);
    EXPECT_NE(inputs.property("stops")->items->property("city"), nullptr);
}

}  // namespace
}  // namespace skillhost::manifest
