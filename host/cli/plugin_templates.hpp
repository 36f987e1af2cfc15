// The files `skillhost plugin new` writes: a complete out-of-tree plugin project that builds, tests
// and passes `skillhost plugin check` as generated. Placeholders: @NAME@ (the plugin name, also a C
// identifier) and @SKILL@ (its first skill's id).
#pragma once

#include <string_view>

namespace skillhost::cli::templates {

extern const std::string_view kCMakeLists;  // @SOURCE@ is the source file's path
extern const std::string_view kManifest;
extern const std::string_view kSourceC;
extern const std::string_view kSourceCpp;
extern const std::string_view kTest;
extern const std::string_view kReadme;
extern const std::string_view kGitignore;

}  // namespace skillhost::cli::templates
