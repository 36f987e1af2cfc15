#include "app/approval_actions.hpp"
#include "app/host_parts.hpp"

namespace skillhost::app {
namespace {

std::optional<RunResumption> resume_waiting_run(const decisions::ApprovalRecord& record, const RunResumer& resume) {
    const auto run_id = record.requested_by.run_id();
    if (!run_id || !resume) return std::nullopt;
    return resume(*run_id);
}

}  // namespace

boost::json::object run_resumption_json(const RunResumption& run) {
    boost::json::object r = run.details;
    r["run_id"] = run.run_id;
    if (run.error) r["error"] = run.error->to_json();
    return r;
}

boost::json::object ApprovalResolution::to_json() const {
    boost::json::object out{{"approval", record.to_json()}};
    if (call) out["call"] = call->to_json();
    if (run) out["run"] = run_resumption_json(*run);
    return out;
}

Result<ApprovalResolution> approve_and_resume(HostRuntime& host, std::string_view approval_id,
                                              const auth::UserContext& approver, const RunResumer& resume) {
    const auto snapshot = host.snapshot();
    auto outcome = parts_of(host).pipeline->approve(*snapshot, approval_id, host.resolver(approver));
    if (!outcome) return outcome.error();
    ApprovalResolution resolution{std::move(outcome->record), std::move(outcome->result), std::nullopt};
    resolution.run = resume_waiting_run(resolution.record, resume);
    return resolution;
}

Result<ApprovalResolution> reject_and_resume(HostRuntime& host, std::string_view approval_id,
                                             const auth::UserContext& approver, std::string_view reason,
                                             const RunResumer& resume) {
    auto record = parts_of(host).pipeline->reject(approval_id, host.resolver(approver), reason);
    if (!record) return record.error();
    ApprovalResolution resolution{std::move(record.value()), std::nullopt, std::nullopt};
    resolution.run = resume_waiting_run(resolution.record, resume);
    return resolution;
}

}  // namespace skillhost::app
