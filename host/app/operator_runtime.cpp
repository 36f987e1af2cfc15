#include "app/operator_runtime.hpp"
#include "app/host_parts.hpp"

#include "app/run_ownership.hpp"
#include "app/storage_schema.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::app {

Result<OperatorRuntime> make_operator_runtime(HostRuntime& host) {
    OperatorRuntime rt;
    rt.host = &host;
    const auto& config = host.config();
    auto operator_config = op::load_operator_config(config.etc_dir / "operator.yaml");
    if (!operator_config) return operator_config.error();
    const auto ownership = this_process_run_ownership();
    auto runs = store::RunStore::open(storage_location(config), ownership);
    if (!runs) return runs.error();
    // A host that died mid-run left it `running` forever; whoever opens the store next says so.
    auto interrupted = runs.value()->mark_interrupted();
    if (!interrupted) return interrupted.error();
    for (const auto& id : interrupted.value())
        spdlog::warn(
            "run {} was being driven by a process that stopped; marked interrupted (resume it with "
            "`skillhost runs resume {}`)",
            id, id);
    rt.runs = std::move(runs.value());
    auto guidance = store::GuidanceStore::open(storage_location(config));
    if (!guidance) return guidance.error();
    rt.guidance = std::move(guidance.value());
    op::OperatorParts parts;
    parts.pipeline = parts_of(host).pipeline.get();
    parts.router = parts_of(host).router.get();
    parts.runs = rt.runs.get();
    parts.guidance = rt.guidance.get();
    if (config.storage.backend == "postgres") {
        // The instance id is the process identity the run store records as a run's owner, so a
        // host on the same machine still recognises a dead driver without waiting for its lease.
        auto leases = store::RunLeases::open(storage_location(config), ownership.self, config.storage.lease_ttl);
        if (!leases) return leases.error();
        rt.leases = std::move(leases.value());
        parts.leases = rt.leases.get();
        parts.lease_heartbeat = config.storage.lease_heartbeat;
    }
    const HostRuntime* h = &host;
    parts.catalog = [h] { return h->snapshot(); };
    parts.config = operator_config.value();
    rt.op = std::make_unique<op::Operator>(std::move(parts));
    return rt;
}

}  // namespace skillhost::app
