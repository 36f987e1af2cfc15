// The import of a memory.db that an older memory plugin left in the user's data directory into the
// host's storage, once (plugins/common/file_import.hpp says how; this file says how to read memories).
#pragma once

#include <skillhost/skill.hpp>

namespace skillhost_builtin::memory {

void import_memory_file_once(const skillhost::Call& call, const skillhost::Storage& storage);

}  // namespace skillhost_builtin::memory
