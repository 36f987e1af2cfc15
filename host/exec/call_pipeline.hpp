// The one way a skill call runs on behalf of a user, on every path (CLI, operator, HTTP API, MCP):
//   find the skill -> validate arguments -> policy (mode, rules, trust, approval) -> run or queue
//   -> audit.
// An `ask` decision queues the call in the approval queue and answers APPROVAL_REQUIRED with the
// approval id in error.details.approval_id. approve() later re-validates the stored arguments,
// re-checks policy for the user as they are at that moment, and runs the call exactly once.
#pragma once

#include "catalog/catalog_snapshot.hpp"
#include "exec/call_observer.hpp"
#include "exec/executor.hpp"
#include "exec/known_directories.hpp"
#include "exec/prepared_call.hpp"
#include "decisions/approval_queue.hpp"
#include "audit/audit_log.hpp"
#include "decisions/elicitation_queue.hpp"
#include "policy/policy_engine.hpp"
#include "auth/requester.hpp"
#include "auth/user_context.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace skillhost::exec {

class ElicitationPause;

struct CallRequest {
    std::string skill_id;
    boost::json::value args = boost::json::object();
    auth::UserContext user;
    auth::Requester requested_by;  // direct unless an operator run or an approval asked
    // The same for every attempt of one intent ("<run id>:<step>", an approval id); empty: the
    // call id (see plugin::Call).
    std::string idempotency_key;
    CallOptions options;
    // A call run again after its user answered a queued question: the answers so far, in the
    // order the skill asked (see exec/elicitation_pause.hpp).
    boost::json::array elicitation_answers;
};

// The result plus what policy decided (absent when the skill was not found or args were invalid).
struct CallOutcome {
    SkillResult result;
    std::optional<policy::Decision> decision;
    std::optional<std::string> approval_id;     // set when the call was queued for approval
    std::optional<std::string> elicitation_id;  // set when the call stopped at a queued question
};

// What approving an approval led to: the final record and the skill's result.
struct ApprovalOutcome {
    decisions::ApprovalRecord record;
    SkillResult result;
};

struct PipelineParts {
    const policy::PolicyEngine* policy = nullptr;   // required
    decisions::ApprovalQueue* approvals = nullptr;  // required
    // Optional: where a skill's question goes when the front end cannot ask (direct calls and
    // operator runs, which pause awaiting_input). Null: nobody is asked later.
    decisions::ElicitationQueue* elicitations = nullptr;
    audit::AuditLog* audit = nullptr;  // optional
    Executor* executor = nullptr;      // required
    std::filesystem::path users_dir;   // <home>/users
    // Resolves a user as they are now (trust, mode, workspace) for re-checks at approval time.
    std::function<Result<auth::UserContext>(std::string_view user_id)> resolve_user;
    // Optional: told about every executed call (observers may be added later), on the thread that
    // answered it.
    std::shared_ptr<CallObserverList> observers;
};

// Called exactly once with a call's outcome (see CallPipeline::start).
using OutcomeCompletion = std::function<void(CallOutcome)>;

class CallPipeline {
public:
    explicit CallPipeline(PipelineParts parts);

    // Runs the call and waits for its outcome. The user's mode, trust and role are read at this
    // call (resolve_user), not taken from when the session or run that asks began.
    CallOutcome call(const catalog::CatalogSnapshot& catalog, const CallRequest& request) const;

    // Finds the skill, validates the arguments and applies policy (audit included) on this thread,
    // then starts the plugin call `where` says. `done` gets the outcome exactly once: before start()
    // returns when the call does not run (unknown skill, invalid arguments, refused, queued for
    // approval), else on the thread that answers the executor's call (see Executor::start).
    void start(const catalog::CatalogSnapshot& catalog, CallRequest request, OutcomeCompletion done,
               RunOn where = RunOn::worker) const;

    // Skills this user may see in their mode (for catalogs shown to people, planners and MCP).
    std::vector<const catalog::CatalogEntry*> visible_entries(const catalog::CatalogSnapshot& catalog,
                                                              const auth::UserContext& user) const;

    // pending -> approved -> executed | failed, exactly once. Errors: the queue's (not found,
    // expired, already resolved, not allowed) and, recorded as a failed approval with the reason,
    // SKILL_NOT_FOUND / INVALID_ARGS / policy refusals found at re-check time.
    Result<ApprovalOutcome> approve(const catalog::CatalogSnapshot& catalog, std::string_view approval_id,
                                    const decisions::Resolver& resolver) const;

    Result<decisions::ApprovalRecord> reject(std::string_view approval_id, const decisions::Resolver& resolver,
                                             std::string_view reason) const;

    const PipelineParts& parts() const { return parts_; }

    // The user as they are now (mode, trust, role), keeping the caller's credential and a narrower
    // mode the caller chose.
    auth::UserContext current_user(const auth::UserContext& user) const;

private:
    // What admission decided: the prepared call and the policy decision when it may run.
    struct Admitted {
        PreparedCall call;
        policy::Decision decision;
    };
    // One lookup in `catalog`, one validation, then policy. An outcome when the call must not run.
    std::variant<Admitted, CallOutcome> admit(const catalog::CatalogSnapshot& catalog,
                                              const CallRequest& request) const;
    // Who `request` is for, for the executor; its user as they are now.
    plugin::Call caller_for(const CallRequest& request) const;
    // The pause for a call's questions (installed as its elicit service), or null when questions
    // cannot be queued for this call.
    std::shared_ptr<ElicitationPause> pause_for(CallRequest& request) const;
    // A call that stopped at a queued question answers ELICITATION_REQUIRED instead of its result.
    static void settle_pause(const std::shared_ptr<ElicitationPause>& pause, CallOutcome& out);
    // `options` plus where users' data lives and the call's rules for paths the plugin touches
    // (path_check extension).
    CallOptions with_path_rules(CallOptions options, const auth::UserContext& user, const manifest::SkillSpec& spec,
                                const boost::json::value& args) const;
    // Tells the observers and the audit log about an executed call.
    void audit_refusal(const CallRequest& request, std::string_view step, const Error& error) const;
    // Moves the request's fields into the audit record: the request is done with.
    void report_call(CallRequest& request, const SkillResult& result) const;

    PipelineParts parts_;
    // Workspaces already created (shared so that the pipeline stays copyable).
    std::shared_ptr<KnownDirectories> workspaces_ = std::make_shared<KnownDirectories>();
};

}  // namespace skillhost::exec
