// What a foreign MCP server's CallToolResult becomes in skillhost: the call's result (its
// structuredContent, else the text of its text blocks) or, with isError, UPSTREAM_TOOL_ERROR; every
// content block is passed on as the call's content, except links to files the call's path rules
// withhold, which are replaced by a note saying so.
#pragma once

#include "plugin/loaded_plugin.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace skillhost::plugin {

RawOutcome outcome_of_tool_result(boost::json::object result, CallControl* control);

// The local path of a file:// URI ("file:///a/b%20c" -> "/a/b c"); nullopt for any other URI.
std::optional<std::string> file_path_of(std::string_view uri);

}  // namespace skillhost::plugin
