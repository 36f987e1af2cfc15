// Turns a skill's output into the text the planner (and sometimes the user) reads. Nothing is
// added that the payload does not contain; the raw payload is kept beside the text.
#pragma once

#include "store/run_record.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace skillhost::op {

// Bullets for lists of records (their title/name/path first, then the other fields), "key: value"
// lines for scalars, and multi-line text as an indented block.
std::string render_structured(const boost::json::value& payload);

// Pretty-printed JSON with two-space indentation.
std::string render_pretty_json(const boost::json::value& payload);

// "<tool> returned: ..." for the planner.
std::string render_narrative(std::string_view tool, const boost::json::value& payload);

std::string render_observation(store::ObservationMode mode, std::string_view tool, const boost::json::value& payload);

// Cuts text longer than max_chars at a line boundary and says how much was left out.
std::string limit_text(std::string text, std::size_t max_chars);

}  // namespace skillhost::op
