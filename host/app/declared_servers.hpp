// The foreign MCP server declarations (manifest/foreign_server.hpp) in the plugin directories, as
// the commands that need no running server read them: every manifest each directory lists, in its
// order; a file that is not a readable declaration is skipped (`skillhost plugin check FILE` says
// why it does not read).
#pragma once

#include "manifest/foreign_server.hpp"

#include <filesystem>
#include <vector>

namespace skillhost::app {

std::vector<manifest::ForeignServer> declared_foreign_servers(const std::vector<std::filesystem::path>& plugin_dirs);

}  // namespace skillhost::app
