// Keyword rules sorting a message into the lightweight operator's intents (factual, temporal, task,
// casual, complex): the offline model's classifier, and the operator's fallback when a model's answer
// cannot be read.
#pragma once

#include <boost/json/object.hpp>

#include <string_view>

namespace skillhost::language {

// {"intent": "factual"|"temporal"|"task"|"casual"|"complex", "confidence": 0..1, "reasoning": "..."}
boost::json::object classify_intent(std::string_view message);

}  // namespace skillhost::language
