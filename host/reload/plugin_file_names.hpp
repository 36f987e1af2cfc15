// Which file names in a plugin directory matter to the reloader.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace skillhost::reload {

// Names an installer or editor uses while a file is being written, never a finished plugin file:
// dot-prefixed names, *.tmp, editor backups and swap files (*~, *.swp/*.swo/*.swx, #name#, vim's
// "4913" probe file). Events on them are ignored; the final rename is what counts.
bool is_temporary_name(std::string_view file_name);

// *.yaml or *.yml that is not a temporary name.
bool is_manifest_name(std::string_view file_name);

// The manifests directly inside `dir` (not recursive), sorted by file name so the catalog order
// (and thus which plugin wins a duplicate skill id) is stable. Empty when the directory is missing.
std::vector<std::filesystem::path> list_manifests(const std::filesystem::path& dir);

}  // namespace skillhost::reload
