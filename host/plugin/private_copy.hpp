// Private copies of plugin libraries: each load maps its own file, so replacing the original on
// disk (a rebuild, an install) cannot change a loaded plugin, and two versions can load side by side
// (the dynamic linker would otherwise hand back the already-loaded handle for the same path).
#pragma once

#include "base/error.hpp"

#include <filesystem>
#include <string_view>

namespace skillhost::plugin {

// Copies `library` to a new, uniquely named file in `cache_dir` (created if missing):
// "<plugin>-<pid>-<n><extension>". Error PRIVATE_COPY_FAILED says what could not be done.
Result<std::filesystem::path> make_private_copy(const std::filesystem::path& library,
                                                const std::filesystem::path& cache_dir, std::string_view plugin_name);

}  // namespace skillhost::plugin
