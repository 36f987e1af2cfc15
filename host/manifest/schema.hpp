// The JSON-Schema subset manifests use for skill inputs and outputs.
#pragma once

#include "manifest/pattern.hpp"

#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace skillhost::manifest {

enum class SchemaType { any, string, integer, number, boolean, array, object, null };

const char* to_string(SchemaType type);

// One node of the subset: type, description, required, default, enum, minimum/maximum, pattern,
// items, properties, and at the root $schema and $defs (used through $ref). Objects never accept properties they do not declare.
struct Schema {
    // Declared here, defined in schema.cpp: clang (14, with libstdc++ 12 in C++20) instantiates a
    // vector's members at the class definition, where `properties` still holds an incomplete type.
    Schema();
    ~Schema();
    Schema(const Schema&);
    Schema(Schema&&) noexcept;
    Schema& operator=(const Schema&);
    Schema& operator=(Schema&&) noexcept;

    SchemaType type = SchemaType::any;
    // The value may also be null: `type: [string, "null"]` or `nullable: true` in the manifest.
    bool nullable = false;
    std::string description;
    std::optional<boost::json::value> default_value;
    std::vector<boost::json::value> enum_values;
    std::optional<double> minimum;
    std::optional<double> maximum;
    std::optional<std::string> pattern;                      // regex, matched anywhere (as JSON Schema)
    std::shared_ptr<const Pattern> compiled_pattern;         // `pattern`, compiled when the manifest was read
    std::shared_ptr<const Schema> items;                     // for arrays
    std::vector<std::pair<std::string, Schema>> properties;  // for objects, in manifest order
    std::vector<std::string> required;                       // for objects
    // JSON Schema 2020-12 structure, kept so clients see the schema as written. `dialect` and
    // `definitions` only at the root (`$schema`, `$defs`); a node read from `$ref: "#/$defs/NAME"`
    // holds a copy of that definition (what validation uses) and `ref` (what is rendered).
    std::string dialect;
    std::vector<std::pair<std::string, Schema>> definitions;
    std::string ref;
    // The object accepts properties it does not declare: set for schemas a foreign MCP server gave
    // (JSON Schema's default), never for a manifest's.
    bool open = false;

    const Schema* property(std::string_view name) const;
    bool is_required(std::string_view name) const;

    // Standard JSON Schema (draft 2020-12 vocabulary) for OpenAI/Ollama `tools` and MCP. With
    // `closed_objects` (inputs: the host rejects unknown argument fields) object schemas get
    // "additionalProperties": false; output schemas leave objects open, since a result may carry
    // fields its manifest does not list and clients (MCP SDKs) validate against the schema.
    boost::json::object to_json_schema(bool closed_objects = true) const;
};

}  // namespace skillhost::manifest
