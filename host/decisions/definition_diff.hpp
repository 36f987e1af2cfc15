// What changed between two definitions of a foreign MCP server's tool (upstream::definition_json) or
// between two instructions ({"instructions"}): one entry per field that differs, each schema property
// and each annotation on its own, so a reviewer reads "inputSchema.properties.path: added" rather than
// two walls of JSON. Pure.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>

namespace skillhost::decisions {

// [{"field": "description", "change": "changed", "old": ..., "new": ...}, {"field":
// "inputSchema.properties.mode", "change": "added", "new": {...}}, ...], in field order. `old_definition`
// null: every field of `new_definition` is added (a new tool).
boost::json::array definition_diff(const boost::json::value& old_definition, const boost::json::object& new_definition);

// The diff as lines for a terminal: "  description: changed\n    - old\n    + new\n".
std::string diff_text(const boost::json::array& diff);

}  // namespace skillhost::decisions
