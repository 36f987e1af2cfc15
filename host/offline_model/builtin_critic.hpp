// The builtin model's critic: reviews a final answer against the observations by rules. It rejects
// an empty answer and one that hides a failed step or says nothing was found when a step returned
// data; everything else is approved. Deterministic, like the rest of the builtin model.
#pragma once

#include <boost/json/object.hpp>

#include <string_view>

namespace skillhost::offline_model {

// `review`: the critic's user message, "Goal: ...\nObservations:\n...\nAnswer:\n...".
// Returns {"approved": bool, "feedback": "..."}.
boost::json::object critique(std::string_view review);

}  // namespace skillhost::offline_model
