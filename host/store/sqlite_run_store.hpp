// The runs table in the SQLite file of one home (the embedded default backend).
#pragma once

#include "store/run_store.hpp"

namespace skillhost::store {

Result<std::unique_ptr<RunStore>> open_sqlite_run_store(const std::filesystem::path& database_file,
                                                        RunOwnership ownership);

}  // namespace skillhost::store
