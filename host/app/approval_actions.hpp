// Approving or rejecting a queued call, and resuming the operator run that waited on it: one use
// case for every front end. The run resumes through the front end's own resumer, because the daemon
// resumes it where its event streams can follow and the CLI runs it in-process.
#pragma once

#include "app/decision_views.hpp"
#include "app/host_runtime.hpp"
#include "base/error.hpp"
#include "exec/executor.hpp"
#include "decisions/approval_record.hpp"
#include "auth/user_context.hpp"

#include <boost/json/object.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::app {

// What became of the run that waited on the approval.
struct RunResumption {
    std::string run_id;
    std::optional<Error> error;   // set when the run could not resume
    boost::json::object details;  // what the front end reports (the run record, where to follow it)
};

// Resumes one run after its approval was resolved (or its question answered); never throws.
using RunResumer = std::function<RunResumption(const std::string& run_id)>;

// {run_id, error?, ...details}: how front ends report a resumption.
boost::json::object run_resumption_json(const RunResumption& run);

struct ApprovalResolution {
    decisions::ApprovalRecord record;
    std::optional<exec::SkillResult> call;  // approved: what the call returned
    std::optional<RunResumption> run;       // an operator run waited on it

    // {approval, call?, run?}: the shape the CLI's --json and the HTTP API answer with.
    boost::json::object to_json() const;
};

// Re-checks arguments and policy as they are now, runs the call exactly once, then resumes the run
// that asked for it (if any). Errors are those of the approval queue and the pipeline
// (APPROVAL_NOT_FOUND, APPROVAL_NOT_PENDING, FORBIDDEN, ...); a run that cannot resume is reported in
// the resolution, not as an error, since the approval itself went through.
Result<ApprovalResolution> approve_and_resume(HostRuntime& host, std::string_view approval_id,
                                              const auth::UserContext& approver, const RunResumer& resume);

// Refuses the call with `reason` (the requester sees it), then resumes the waiting run, which
// observes the rejection.
Result<ApprovalResolution> reject_and_resume(HostRuntime& host, std::string_view approval_id,
                                             const auth::UserContext& approver, std::string_view reason,
                                             const RunResumer& resume);

}  // namespace skillhost::app
