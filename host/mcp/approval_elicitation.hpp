// Asking the MCP client's user to approve a queued call through elicitation/create, and reading
// their answer. The session sends the request and waits; this file knows the message shapes.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace skillhost::mcp {

// params of elicitation/create: a message naming the tool, its arguments and the approval id, and
// a form with `decision` (approve | reject) and an optional `reason`.
boost::json::object approval_elicitation_params(std::string_view tool, const boost::json::value& args,
                                                std::string_view approval_id, std::string_view why);

struct ApprovalAnswer {
    enum class Kind { approve, reject, undecided } kind = Kind::undecided;
    std::string reason;
};

// The client's response message ({result:{action, content}} or {error}). accept+approve -> approve;
// accept+reject and decline -> reject (declining is a clear "no"); cancel, errors and anything
// malformed -> undecided (the approval stays pending for the CLI).
ApprovalAnswer read_approval_answer(const boost::json::object& response);

}  // namespace skillhost::mcp
