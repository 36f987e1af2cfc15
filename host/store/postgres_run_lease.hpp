// Run leases in PostgreSQL (table run_leases), shared by every daemon on the database. Expiry is
// judged by the database clock, so instances whose clocks differ still agree on it.
#pragma once

#include "store/run_lease.hpp"

namespace skillhost::store {

Result<std::unique_ptr<RunLeases>> open_postgres_run_leases(const std::string& url, std::string instance_id,
                                                            std::chrono::milliseconds ttl);

}  // namespace skillhost::store
