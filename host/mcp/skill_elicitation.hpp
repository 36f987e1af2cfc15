// A skill asking its user for input ("skillhost.elicit/1") as MCP elicitation/create: the form
// schema a skill may send (decisions/elicitation_form.hpp) and the check of the client's answer against it. The session sends and waits.
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace skillhost::mcp {

// params of elicitation/create ({message, requestedSchema}) for the skill's request.
// ELICITATION_INVALID names what is wrong with the request.
Result<boost::json::object> elicitation_params(std::string_view request_json);

// The client's response message as the ABI answer: {"action":"accept","content":{...}},
// {"action":"decline"} or {"action":"cancel"}. ELICITATION_FAILED when the client answered with an
// error, an unknown action, or content that breaks `requested_schema` (naming the field).
Result<std::string> read_elicitation_answer(const boost::json::object& response,
                                            const boost::json::object& requested_schema);

}  // namespace skillhost::mcp
