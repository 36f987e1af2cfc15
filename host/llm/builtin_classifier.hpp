// The builtin model's intent classifier: keyword rules sorting a message into the lightweight
// operator's intents (factual, temporal, task, casual, complex).
#pragma once

#include <boost/json/object.hpp>

#include <string_view>

namespace skillhost::llm::builtin {

// {"intent": "factual"|"temporal"|"task"|"casual"|"complex", "confidence": 0..1, "reasoning": "..."}
boost::json::object classify_intent(std::string_view message);

}  // namespace skillhost::llm::builtin
