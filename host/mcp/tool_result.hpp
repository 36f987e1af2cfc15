// Turns the outcome of a skill call into an MCP CallToolResult.
#pragma once

#include "exec/call_pipeline.hpp"

#include <boost/json/object.hpp>

#include <string_view>

namespace skillhost::mcp {

// Success: {content:[{type:text, text:<result JSON>}], structuredContent:<result object>, isError:false}
// (structuredContent only when the result is an object, as MCP requires). A skill that added
// content items ("skillhost.content/1") gets them as `content` instead of the JSON text, with
// structuredContent when its result is a non-empty object.
// Failure: {content:[{type:text, text:"CODE: message\n- suggestion"}], isError:true,
//           _meta:{"skillhost/error":{code,message,details,suggestions}}}. The structured error goes
// in _meta, not structuredContent, because clients validate structuredContent against the tool's
// outputSchema. APPROVAL_REQUIRED adds the approval id and the command that approves it.
boost::json::object render_call_result(const exec::CallOutcome& outcome, std::string_view user_id);

// The text shown for a failed call (also used when an approval asked through elicitation fails).
std::string failure_text(const Error& error);

}  // namespace skillhost::mcp
