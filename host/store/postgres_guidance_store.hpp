// Guidance and playbooks in PostgreSQL, shared by every daemon (tsvector for the playbook search).
#pragma once

#include "store/guidance_store.hpp"

namespace skillhost::store {

Result<std::unique_ptr<GuidanceStore>> open_postgres_guidance_store(const std::string& url);

}  // namespace skillhost::store
