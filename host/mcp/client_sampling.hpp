// A plugin's completion request (skill_abi.h `complete`) answered by the MCP client through
// sampling/createMessage: the message shapes in both directions. The session sends and waits.
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace skillhost::mcp {

// params of sampling/createMessage for the ABI request ({"messages", "temperature"?, "max_tokens"?,
// "json_schema"?}): system messages become systemPrompt, json_schema an instruction in it (the
// client cannot enforce it), maxTokens defaults to 1024. LLM_BAD_REQUEST for a malformed request.
Result<boost::json::object> sampling_params(std::string_view role, std::string_view request_json);

struct SampledAnswer {
    std::string abi_json;  // {"content","model","backend":"mcp-client"}
    std::string model;     // what the client says answered
};

// The client's response message ({result:{role, content:{type:text,...}, model}} or {error}).
// LLM_FAILED when the client refused, failed, or answered with anything but text.
Result<SampledAnswer> read_sampling_answer(const boost::json::object& response);

}  // namespace skillhost::mcp
