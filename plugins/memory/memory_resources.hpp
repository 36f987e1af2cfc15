// The memory plugin's resources ("skillhost.resources/1"): each of the user's memories as
// memory://<id>, so an MCP client can attach one to a conversation (see memory_resources.cpp).
#pragma once

#include <skillhost/skill.hpp>

#include <string_view>

namespace skillhost_builtin::memory {

// {"resources":[{uri, name, title, description, mimeType}]}: the user's newest memories (at most
// kMaxListedMemories; older ones stay readable through the memory://{id} template).
skillhost::Json list_memory_resources(const skillhost::Call& call);
// {"resourceTemplates":[{uriTemplate: "memory://{id}", ...}]}.
skillhost::Json memory_resource_templates(const skillhost::Call& call);
// {"contents":[{uri, mimeType: "application/json", text}]}: the memory as memory_recent shows it.
skillhost::Json read_memory_resource(const skillhost::Call& call, std::string_view uri);

}  // namespace skillhost_builtin::memory
