// The builtin model's planner: picks the next action for a goal from the tools it is given, by
// rules instead of a language model. It plans lookups (one read), find-then-act chains (find the
// item the goal describes, then change or delete it by the id the find returned), entity questions
// (search every kind of data for a name), and says honestly when no tool can do what is asked.
// Deterministic: the same goal, tools and steps always give the same plan.
#pragma once

#include <boost/json/object.hpp>

namespace skillhost::offline_model {

// `context` is the planner context {"goal", "tools":[{id, description, inputs, examples, read_only}],
// "steps":[{tool, args, ok, data?, error_code, error_message?, suggestions?, observation_summary}]}.
// Returns the planner JSON: {"thought", "action":{"tool","args"}} or
// {"thought", "respond":true, "response_style"?, "note"?}; a note is what the answer must say (the
// candidates of an ambiguous reference, why nothing can do the goal).
boost::json::object plan_next_step(const boost::json::object& context);

}  // namespace skillhost::offline_model
