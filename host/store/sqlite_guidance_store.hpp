// Guidance and playbooks in the SQLite file of one home (FTS5 for the playbook search).
#pragma once

#include "store/guidance_store.hpp"

namespace skillhost::store {

Result<std::unique_ptr<GuidanceStore>> open_sqlite_guidance_store(const std::filesystem::path& database_file);

}  // namespace skillhost::store
