// The planner's answer: {thought, action?:{tool,args}, respond?, response_style?, note?}. Models wrap JSON
// in prose or code fences and get fields wrong; parsing repairs what it safely can and otherwise
// says exactly what is wrong, so the retry prompt can quote it.
#pragma once

#include "base/error.hpp"
#include "store/run_record.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace skillhost::op {

struct PlannerOutput {
    std::string thought;
    std::optional<store::Action> action;
    bool respond = false;
    std::string response_style;  // "", default, strict, summary, verbatim
    std::string note;            // with respond: what the answer must tell the user (candidates, limits)
    bool repaired = false;       // the JSON had to be cut out of surrounding text
};

// The JSON Schema sent as structured output.
const boost::json::object& planner_schema();

// PLANNER_OUTPUT_INVALID (details.reason, details.text) when no valid plan can be read.
Result<PlannerOutput> parse_planner_output(std::string_view text);

// The first balanced {...} in `text` (skipping braces inside strings), or empty.
std::string extract_json_object(std::string_view text);

}  // namespace skillhost::op
