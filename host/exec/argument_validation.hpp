// Checks call arguments against a skill's input schema and fills in defaults.
#pragma once

#include "base/error.hpp"
#include "manifest/schema.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace skillhost::exec {

struct ArgumentProblem {
    std::string path;     // e.g. "args.tags[2]" or "args.priority"
    std::string message;  // e.g. "expected one of low, medium, high, got \"urgent\""
};

// Validates `args` against `schema` (types, required, enum, minimum/maximum, pattern, items,
// nested properties; unknown fields are problems listing the allowed ones). Returns every problem.
std::vector<ArgumentProblem> validate_arguments(const manifest::Schema& schema, const boost::json::value& args);

// Returns `args` with defaults from the schema applied to absent properties (recursively).
boost::json::value apply_defaults(const manifest::Schema& schema, const boost::json::value& args);

// One line naming every input with its type, required marker, enum and default, e.g.
// "task_create takes: title (string, required), priority (string: low|medium|high, default \"medium\")".
std::string describe_inputs(std::string_view skill_id, const manifest::Schema& schema);

// validate + apply defaults; on problems an INVALID_ARGS Error whose message names the first
// problem and whose details list all problems and the skill's accepted fields.
Result<boost::json::value> prepare_arguments(std::string_view skill_id, const manifest::Schema& schema,
                                             const boost::json::value& args);

}  // namespace skillhost::exec
