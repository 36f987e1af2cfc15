// The runs table in PostgreSQL, shared by every daemon on the database. Claims are one
// compare-and-set UPDATE committed on its own, so no transaction is open while the run executes.
#pragma once

#include "store/run_store.hpp"

namespace skillhost::store {

Result<std::unique_ptr<RunStore>> open_postgres_run_store(const std::string& url, RunOwnership ownership);

}  // namespace skillhost::store
