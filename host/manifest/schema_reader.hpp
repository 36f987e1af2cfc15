// Internal to manifest/: reading the JSON-Schema subset from YAML.
#pragma once

#include "manifest/schema.hpp"
#include "manifest/yaml_field.hpp"

namespace skillhost::manifest::detail {

enum class SchemaRole {
    any,           // outputs and nested schemas: any type
    input_object,  // a skill's `inputs`: an object schema, `type: object` implied when absent
};

// Reads one schema node (and everything under it), reporting every problem. Always returns a
// schema; parts that could not be read are left out.
Schema read_schema(const Field& field, SchemaRole role, ProblemList& problems);

}  // namespace skillhost::manifest::detail
