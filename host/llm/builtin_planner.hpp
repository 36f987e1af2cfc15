// The builtin model's planner: picks the next action for a goal from the tools it is given, by
// rules instead of a language model. Deterministic: the same goal, tools and steps always give the
// same plan.
#pragma once

#include <boost/json/object.hpp>

namespace skillhost::llm::builtin {

// `context` is the planner context {"goal", "tools":[{id, description, inputs, examples, read_only}],
// "steps":[{tool, args, ok, error_code, observation_summary}]}. Returns the planner JSON:
// {"thought", "action":{"tool","args"}} or {"thought", "respond":true}.
boost::json::object plan_next_step(const boost::json::object& context);

}  // namespace skillhost::llm::builtin
