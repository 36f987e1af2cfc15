// Internal to manifest/: converting YAML values (defaults, enum values, example arguments) into
// JSON values of the type their schema declares, so `default: "5"` under `type: integer` becomes 5.
#pragma once

#include "manifest/schema.hpp"
#include "manifest/yaml_field.hpp"

#include <boost/json/value.hpp>

#include <optional>

namespace skillhost::manifest::detail {

// Converts `field` to the JSON type `schema` declares and checks it against the schema's enum,
// minimum, maximum, pattern, required properties and declared properties. Without a declared type
// (`any`) the type is inferred the way YAML would: quoted text is a string, plain true/false a
// boolean, plain numbers numbers, ~ or null or nothing null. Reports every mismatch; nullopt if any.
std::optional<boost::json::value> json_from_yaml(const Field& field, const Schema& schema, ProblemList& problems);

// Reports (as a problem at `field`) when `value` breaks the schema's enum, minimum, maximum or
// pattern. Returns whether the value passed.
bool check_constraints(const boost::json::value& value, const Schema& schema, const Field& field,
                       ProblemList& problems);

}  // namespace skillhost::manifest::detail
