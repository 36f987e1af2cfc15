// Checks what a plugin's "skillhost.resources/1" functions answered before anything of it reaches a
// client: the shape the ABI header promises, the plugin's own URI prefix, the host's limits. Keeps
// only the members MCP defines, so a plugin cannot smuggle anything else into a response.
#pragma once

#include "base/error.hpp"

#include <boost/json/array.hpp>

#include <cstddef>
#include <string_view>

namespace skillhost::exec {

inline constexpr std::size_t kMaxResourcesPerPlugin = 1000;
inline constexpr std::size_t kMaxResourceAnswerBytes = std::size_t{8} << 20;
inline constexpr std::size_t kMaxResourceUriBytes = 8192;
inline constexpr std::size_t kMaxResourceContents = 64;

// What is being checked: the plugin's name and URI prefix, and which function answered.
struct ResourceReplySource {
    std::string_view plugin;
    std::string_view uri_prefix;
    std::string_view function;  // "list()", "list_templates()", "read()"
};

// {"resources":[...]} → the resources, or PLUGIN_INVALID_RESULT naming the member at fault.
Result<boost::json::array> check_resource_list(const ResourceReplySource& source, std::string_view reply_json);
// {"resourceTemplates":[...]} → the templates, or PLUGIN_INVALID_RESULT.
Result<boost::json::array> check_resource_templates(const ResourceReplySource& source, std::string_view reply_json);
// {"contents":[...]} → the contents, or PLUGIN_INVALID_RESULT (blob must be standard base64).
Result<boost::json::array> check_resource_contents(const ResourceReplySource& source, std::string_view reply_json);

}  // namespace skillhost::exec
