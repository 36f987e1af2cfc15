// The four skills of the fs plugin; each confines itself through Workspace.
#pragma once

#include <skillhost/skill.hpp>

#include <sys/stat.h>

namespace skillhost_builtin::fs {

skillhost::Json fs_list(const skillhost::Call& call, const skillhost::Json& args);
skillhost::Json fs_read(const skillhost::Call& call, const skillhost::Json& args);
skillhost::Json fs_write(const skillhost::Call& call, const skillhost::Json& args);
skillhost::Json fs_search(const skillhost::Call& call, const skillhost::Json& args);

// ISO-8601 UTC modification time of `st`.
std::string modification_time(const struct stat& st);

}  // namespace skillhost_builtin::fs
