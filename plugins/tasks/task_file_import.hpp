// The import of a tasks.db that an older tasks plugin left in the user's data directory into the
// host's storage, once (plugins/common/file_import.hpp says how; this file says how to read tasks).
#pragma once

#include <skillhost/skill.hpp>

namespace skillhost_builtin::tasks {

void import_task_file_once(const skillhost::Call& call, const skillhost::Storage& storage);

}  // namespace skillhost_builtin::tasks
