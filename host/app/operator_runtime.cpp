#include "app/operator_runtime.hpp"

#include "app/run_ownership.hpp"
#include "app/storage_schema.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::app {

Result<OperatorRuntime> make_operator_runtime(HostRuntime& host) {
    OperatorRuntime rt;
    rt.host = &host;
    const auto& config = host.config;
    auto operator_config = op::load_operator_config(config.etc_dir / "operator.yaml");
    if (!operator_config) return operator_config.error();
    auto runs = store::RunStore::open(storage_location(config), this_process_run_ownership());
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
    parts.pipeline = host.pipeline.get();
    parts.router = host.router.get();
    parts.runs = rt.runs.get();
    parts.guidance = rt.guidance.get();
    const HostRuntime* h = &host;
    parts.catalog = [h] { return h->snapshot(); };
    parts.config = operator_config.value();
    rt.op = std::make_unique<op::Operator>(std::move(parts));
    return rt;
}

}  // namespace skillhost::app
