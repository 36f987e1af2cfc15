// The fs plugin's resources: workspace files as file:// URIs (see fs_resources.cpp).
#pragma once

#include <skillhost/skill.hpp>

#include <string_view>

namespace skillhost_builtin::fs {

// {"resources":[{uri, name (the path relative to the root), mimeType, size}]} for the files of the
// workspace (at most 500, hidden ones left out), as fs_list shows them.
skillhost::Json list_workspace_files(const skillhost::Call& call);
// {"contents":[{uri, mimeType, text | blob}]} for a file:///absolute/path URI inside the workspace.
skillhost::Json read_workspace_file(const skillhost::Call& call, std::string_view uri);

}  // namespace skillhost_builtin::fs
