// Reading the JSON Schema a foreign MCP server gives for a tool into the host's Schema subset, for
// what the host itself does with arguments: check their top-level types and required fields, fill
// defaults, find path inputs, show the planner the inputs. Constructs outside the subset (anyOf,
// $ref, patterns, ...) become `any`: the server checks its own arguments. Objects are `open` unless
// the server says `additionalProperties: false`. Depth is bounded; nothing here recurses without
// limit on what the server sent.
#pragma once

#include "manifest/schema.hpp"

#include <boost/json/object.hpp>

namespace skillhost::manifest {

Schema schema_from_json(const boost::json::object& schema);

}  // namespace skillhost::manifest
