// Answering a skill's queued question, and running the call that asked it again with the answer:
// one use case for every front end (CLI, HTTP API), like approve-and-resume for approvals.
#pragma once

#include "app/approval_actions.hpp"
#include "app/decision_views.hpp"
#include "app/host_runtime.hpp"
#include "base/error.hpp"
#include "exec/executor.hpp"
#include "decisions/elicitation_record.hpp"
#include "auth/user_context.hpp"
#include "store/run_record.hpp"

#include <boost/json/object.hpp>

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace skillhost::app {

struct ElicitationResolution {
    decisions::ElicitationRecord record;
    exec::SkillResult call;                     // what the call returned when it ran again
    std::optional<std::string> elicitation_id;  // it stopped at a further question
    std::optional<std::string> approval_id;     // it was queued for approval this time
    std::optional<RunResumption> run;           // an operator run waited on the answer

    // {elicitation, call, next_elicitation_id?, approval_id?, run?}: what the CLI's --json and the
    // API answer.
    boost::json::object to_json() const;
};

// How a question an operator run asked reaches its run (the front end knows the run store and
// where the run resumes: the daemon's run hub, or in-process for the CLI).
struct WaitingRun {
    std::function<Result<store::Run>(const std::string& run_id)> load;
    RunResumer resume;
};

// Records the answer exactly once (a second answer: ELICITATION_ALREADY_ANSWERED), then runs the
// call again with every answer so far, under policy as it is now, and records what it returned;
// when an operator run asked, the run then resumes with that result (`run.resume`). A question
// whose run no longer waits on it (cancelled, failed) is closed as cancelled and the answer
// refused with RUN_NOT_AWAITING_INPUT: the skill does not run for a run that is gone.
// Errors are the queue's (not found, expired, already answered, invalid answer naming the field);
// what the call then did is in the resolution, since the answer itself went through.
Result<ElicitationResolution> answer_and_resume(HostRuntime& host, std::string_view id,
                                                const auth::UserContext& answerer,
                                                const decisions::ElicitationAnswer& answer, const WaitingRun& run = {});

}  // namespace skillhost::app
