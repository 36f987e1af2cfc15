// The import of a tasks.db that an older tasks plugin left in the user's data directory, into the
// host's storage, once. On the first call that finds the file (per user and instance):
//  1. It takes the file's write lock (BEGIN IMMEDIATE), so one caller at a time imports it, and
//     reads its tasks and its last id (AUTOINCREMENT's counter: ids of deleted tasks stay used).
//  2. It creates the marker `tasks.meta`/`file_import` (expected_version 0: of two instances
//     importing at once, one wins) naming this file (its host and path, and a fingerprint of its
//     contents that says whether a file is the one being imported) and advances the `tasks`
//     sequence past the file's last id in the same batch, so new tasks never take an imported id.
//  3. It writes the tasks with their ids, in batches of at most 100 operations, each create-only.
//     A task whose id is already taken by a different task (one created through another instance
//     before the import) is imported under a new id, and the log says which.
//  4. It marks the import done and renames the file (and its -wal, -shm) to tasks.db.migrated,
//     kept as evidence, never deleted. An import cut short is resumed by the next call.
// When the marker names another file (another fingerprint: another instance imported its own
// tasks.db for this user), this file is not imported: the log says so and, once that import is
// done, the file is renamed to tasks.db.not-imported (kept; its tasks are not in the shared list).
#pragma once

#include <skillhost/skill.hpp>

namespace skillhost_builtin::tasks {

void import_task_file_once(const skillhost::Call& call, const skillhost::Storage& storage);

}  // namespace skillhost_builtin::tasks
