// The operator over a host runtime: its call pipeline and (current) catalog, the model router, and
// the run and guidance stores in skillhost.db. What `ask`, `runs`, `guide`, approvals that resume
// runs, and the daemon's run API share.
#pragma once

#include "app/host_runtime.hpp"
#include "operator/operator.hpp"
#include "store/guidance_store.hpp"
#include "store/run_lease.hpp"
#include "store/run_store.hpp"

#include <memory>

namespace skillhost::app {

struct OperatorRuntime {
    HostRuntime* host = nullptr;  // not owned; outlives this
    std::unique_ptr<store::RunStore> runs;
    std::unique_ptr<store::GuidanceStore> guidance;
    // PostgreSQL only (several instances): the leases runs are driven under, this process's
    // announcement as an instance, and the sweeper election. Null on SQLite, whose one host keeps
    // telling dead drivers by their process identity.
    std::unique_ptr<store::RunLeases> leases;
    std::unique_ptr<op::Operator> op;
};

// OPERATOR_CONFIG_INVALID (operator.yaml) or DATABASE_ERROR.
Result<OperatorRuntime> make_operator_runtime(HostRuntime& host);

}  // namespace skillhost::app
