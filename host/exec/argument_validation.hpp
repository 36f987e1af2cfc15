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

// Validates a skill's result against its `outputs` schema. As JSON Schema, objects may carry fields
// the schema does not declare; everything declared (types, nullability, required, enum, bounds,
// pattern, items) must hold, since MCP clients reject a result that breaks the output schema.
std::vector<ArgumentProblem> validate_result(const manifest::Schema& schema, const boost::json::value& result);

// validate_result as an error: PLUGIN_INVALID_RESULT naming the first broken field (all of them,
// up to 20, in details.problems; how many in details.problem_count) and saying that the plugin's
// author must fix it.
Status check_result(std::string_view skill_id, std::string_view plugin_name, const manifest::Schema& schema,
                    const boost::json::value& result);

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
