// The offline model's answers: a templated rendering of the observations it is given (lists with
// their key fields, file contents, errors), marked as coming from the builtin model.
#pragma once

#include "llm/answer_instructions.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace skillhost::offline_model {

// Appended to every free-text answer of the builtin model, so nobody mistakes it for an LLM's.
inline constexpr std::string_view kBuiltinMarker = "(answered by the built-in model, no LLM)";

// The operator's note arrives in the instructions after this line (see llm/answer_instructions.hpp).
using llm::kNoteLead;

// A planner's note that is the whole answer (the sentences or rows it found, each cited, or what it
// searched without finding anything): the answer is the note alone, without this line.
inline constexpr std::string_view kAnswerLead = "The answer, as found in the data (say only this):\n";

// `context`: {"goal", "style": "default"|"strict"|"summary", "observations":[{tool, args, ok, data, error}],
// "instructions"?}. A planner's note in the instructions comes first; then the data, then failures
// (left out when the note already reports them).
std::string render_answer(const boost::json::object& context);

// A reply when no data was asked for (casual messages), honest about what the builtin model is.
std::string casual_reply(std::string_view message);

}  // namespace skillhost::offline_model
