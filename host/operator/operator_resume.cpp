// The ways a paused run continues: after its approval was resolved, and with the user's guidance
// (which, when the guided run succeeds, becomes a playbook). The ReAct loop itself is operator.cpp.
#include "operator/observation_format.hpp"
#include "operator/operator.hpp"
#include "operator/operator_session.hpp"
#include "operator/run_lease_hold.hpp"
#include "store/run_plugin_versions.hpp"
#include "exec/error_codes.hpp"
#include "operator/error_codes.hpp"
#include "plugin/error_codes.hpp"
#include "audit/error_codes.hpp"
#include "auth/error_codes.hpp"
#include "decisions/error_codes.hpp"
#include "policy/error_codes.hpp"
#include "db/error_codes.hpp"

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

namespace skillhost::op {

namespace json = boost::json;
using store::RunStatus;

namespace {

// Whether this instance has every plugin version the run's steps called, so it may continue it.
Status has_plugin_versions_of(const store::Run& run, const catalog::CatalogSnapshot* catalog) {
    return store::check_plugin_versions(run, [catalog](std::string_view name) -> std::optional<std::string> {
        if (catalog == nullptr) return std::nullopt;
        for (const auto& plugin : catalog->plugins())
            if (plugin->manifest().name == name) return std::string(plugin->version());
        return std::nullopt;
    });
}

// The observation of a call that ran outside the run (an approved call, a step run again with its
// user's answer): `result` is its SkillResult::to_json ({ok, result} or {ok:false, error}).
store::Observation observation_of_call(const json::value& result, bool ok, std::string fallback_code,
                                       std::string fallback_message, const std::string& tool,
                                       const OperatorConfig& config) {
    store::Observation obs;
    obs.mode = config.observation_mode;
    const auto* o = result.is_object() ? &result.as_object() : nullptr;
    obs.success = ok;
    if (ok) {
        obs.raw = o && o->contains("result") ? o->at("result") : result;
        obs.content = limit_text(render_observation(obs.mode, tool, obs.raw), config.observation_max_chars);
        return obs;
    }
    const json::object* err =
        o && o->contains("error") && o->at("error").is_object() ? &o->at("error").as_object() : nullptr;
    store::ObservationError oe{std::move(fallback_code), std::move(fallback_message), {}};
    if (err) {
        if (const auto* c = err->if_contains("code"); c && c->is_string()) oe.code = std::string(c->as_string());
        if (const auto* m = err->if_contains("message"); m && m->is_string()) oe.message = std::string(m->as_string());
    }
    obs.raw = result;
    obs.content = "FAILED " + oe.code + ": " + oe.message;
    obs.error = std::move(oe);
    return obs;
}

// The error a call that ran outside the run answered with, when it has one.
std::optional<Error> call_error(const json::value& result) {
    const auto* o = result.if_object();
    const auto* ok = o ? o->if_contains("ok") : nullptr;
    if (!ok || !ok->is_bool() || ok->as_bool()) return std::nullopt;
    const auto* err = o->if_contains("error");
    if (!err || !err->is_object()) return std::nullopt;
    const auto& e = err->as_object();
    const auto* c = e.if_contains("code");
    const std::string code = c && c->is_string() ? std::string(c->as_string()) : std::string();
    const auto* m = e.if_contains("message");
    std::string message = m && m->is_string() ? std::string(m->as_string()) : std::string();
    // A call answers with a code of the call path below, or with its plugin's own.
    const auto known = find_error_code(code, errors::kExecErrorCodes, errors::kPolicyErrorCodes,
                                       errors::kDecisionsErrorCodes, errors::kAuditErrorCodes, errors::kAuthErrorCodes,
                                       errors::kPluginErrorCodes, errors::kDbErrorCodes);
    Error error =
        known ? Error::reported(code, known->kind, std::move(message)) : Error::from_plugin(code, std::move(message));
    if (const auto* d = e.if_contains("details"); d && d->is_object()) error.details = d->as_object();
    return error;
}

// RUN_NOT_AWAITING_APPROVAL and the like: the run is in another state than the resume needs.
Error run_not_waiting(const ErrorCode& code, const store::Run& run, std::string_view waiting_for) {
    Error error{
        code, "run " + run.id + " is " + store::to_string(run.status) + ", " + std::string(waiting_for), {}, {}};
    error.details["run_id"] = run.id;
    error.details["status"] = store::to_string(run.status);
    return error;
}

// The observation a resumed run's last step got while it waited, reported once the run is claimed
// (under its lease's epoch, so a resumer that lost the race writes nothing to the shared log).
void emit_resumed_observation(RunEventSubscriber* events, const store::Run& run, const RunLeaseHold* lease) {
    const auto& entry = run.steps.back();
    if (!events || !entry.observation) return;
    RunEvent event{RunEventType::observation, run.id, static_cast<int>(run.steps.size()), entry.observation->content,
                   json::object{{"tool", entry.action->tool}, {"success", entry.observation->success}}};
    event.lease_epoch = lease ? lease->epoch() : 0;
    events->on_event(event);
}

// APPROVAL_STILL_PENDING, ELICITATION_STILL_PENDING: the run waits on what a person may still act on.
Error still_pending(const ErrorCode& code, const store::Run& run, std::string_view what, const std::string& id,
                    std::string_view state, std::string_view act) {
    Error error{code,
                std::string(what) + " " + id + " is still " + std::string(state) + " — " + std::string(act) + " first",
                {},
                {}};
    error.details[std::string(what) + "_id"] = id;
    error.details["run_id"] = run.id;
    return error;
}

Error approval_still_pending(const store::Run& run, decisions::ApprovalState state) {
    return still_pending(errors::kApprovalStillPending, run, "approval", run.approval_id, decisions::to_string(state),
                         "approve it with `skillhost approvals approve " + run.approval_id + "` or reject it");
}

Error elicitation_still_pending(const store::Run& run, decisions::ElicitationState state) {
    return still_pending(errors::kElicitationStillPending, run, "elicitation", run.elicitation_id,
                         decisions::to_string(state),
                         "answer it with `skillhost elicitations answer " + run.elicitation_id + "`");
}

std::string detail_text(const Error& error, std::string_view key) {
    const auto* v = error.details.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

Status Operator::can_continue_here(const store::Run& run) const {
    return has_plugin_versions_of(run, parts_.catalog().get());
}

Status Operator::resumable(const store::Run& run) const {
    if (run.status == RunStatus::interrupted) return can_continue_here(run);
    if (run.status == RunStatus::awaiting_approval && !run.approval_id.empty()) {
        auto record = parts_.pipeline->parts().approvals->get(run.approval_id);
        if (!record) return record.error();
        if (record->state == decisions::ApprovalState::pending || record->state == decisions::ApprovalState::approved)
            return approval_still_pending(run, record->state);
        return can_continue_here(run);
    }
    auto* questions = parts_.pipeline->parts().elicitations;
    if (run.status == RunStatus::awaiting_input && !run.elicitation_id.empty() && questions) {
        auto record = questions->get(run.elicitation_id);
        if (!record) return record.error();
        if (record->state == decisions::ElicitationState::pending ||
            record->state == decisions::ElicitationState::answered)
            return elicitation_still_pending(run, record->state);
        return can_continue_here(run);
    }
    Error error = run_not_waiting(errors::kRunNotResumable, run,
                                  "not interrupted and not waiting on an approval or a question that has ended");
    error.suggestions.push_back("follow it with GET /v1/runs/" + run.id + "/events");
    return error;
}

Result<store::Run> Operator::resume_after_approval(std::string_view run_id, RunEventSubscriber* events,
                                                   std::shared_ptr<std::atomic<bool>> cancel) {
    auto loaded = parts_.runs->get(run_id);
    if (!loaded) return loaded.error();
    store::Run run = std::move(loaded.value());
    if (run.status != RunStatus::awaiting_approval || run.approval_id.empty() || run.steps.empty() ||
        !run.steps.back().action) {
        return run_not_waiting(errors::kRunNotAwaitingApproval, run, "not waiting for an approval");
    }
    auto record = parts_.pipeline->parts().approvals->get(run.approval_id);
    if (!record) return record.error();
    auto& entry = run.steps.back();
    store::Observation obs;
    obs.mode = parts_.config.observation_mode;
    switch (record->state) {
        case decisions::ApprovalState::pending:
        case decisions::ApprovalState::approved: return approval_still_pending(run, record->state);
        case decisions::ApprovalState::executed:
        case decisions::ApprovalState::failed:
            obs = observation_of_call(record->result, record->state == decisions::ApprovalState::executed,
                                      std::string(errors::kApprovedCallFailed.name),
                                      record->reason.empty() ? "the approved call failed" : record->reason,
                                      entry.action->tool, parts_.config);
            break;
        case decisions::ApprovalState::rejected:
        case decisions::ApprovalState::expired: {
            const bool rejected = record->state == decisions::ApprovalState::rejected;
            const std::string message =
                rejected ? "user rejected the action" + (record->reason.empty() ? std::string() : ": " + record->reason)
                         : "the approval expired before anyone approved it";
            obs.success = false;
            obs.raw = json::object{{"ok", false}, {"approval", record->to_json()}};
            obs.error =
                store::ObservationError{std::string((rejected ? errors::kUserRejected : errors::kApprovalExpired).name),
                                        message,
                                        {"Do not retry this action; find another way or respond with what is known"}};
            obs.content = "FAILED " + obs.error->code + ": " + message;
            break;
        }
    }
    entry.observation = std::move(obs);
    run.status = RunStatus::running;
    run.approval_id.clear();
    run.error.reset();
    auto user = user_for(run);
    if (!user) return user.error();
    auto lease = lease_to_continue(run, cancel);
    if (!lease) return lease.error();
    return claim_and_drive(run, RunStatus::awaiting_approval, user.value(), events, std::move(cancel),
                           std::move(lease.value()));
}

Result<store::Run> Operator::resume_after_input(std::string_view run_id, RunEventSubscriber* events,
                                                std::shared_ptr<std::atomic<bool>> cancel) {
    auto loaded = parts_.runs->get(run_id);
    if (!loaded) return loaded.error();
    store::Run run = std::move(loaded.value());
    if (run.status != RunStatus::awaiting_input || run.elicitation_id.empty() || run.steps.empty() ||
        !run.steps.back().action) {
        return run_not_waiting(errors::kRunNotAwaitingInput, run, "not waiting for its user's answer");
    }
    auto* questions = parts_.pipeline->parts().elicitations;
    if (!questions) {
        return Error{errors::kElicitationUnavailable, "this host keeps no queue of questions, so run " + run.id +
                                                          " cannot learn its answer; cancel it and start again"};
    }
    auto record = questions->get(run.elicitation_id);
    if (!record) return record.error();
    auto& entry = run.steps.back();
    const std::string& tool = entry.action->tool;
    // What the step does now: observe a result, or wait on a further question or an approval.
    std::optional<RunEvent> paused_again;
    switch (record->state) {
        case decisions::ElicitationState::pending:
        case decisions::ElicitationState::answered: return elicitation_still_pending(run, record->state);
        case decisions::ElicitationState::expired: {
            // Nobody answered: the skill's question stays unanswered, never guessed.
            store::Observation obs;
            obs.mode = parts_.config.observation_mode;
            obs.success = false;
            obs.raw = json::object{{"ok", false}, {"elicitation", record->to_json()}};
            obs.error = store::ObservationError{
                std::string(errors::kElicitationExpired.name),
                "the user did not answer the skill's question (" + record->message + ") before it expired",
                {"Do not guess the answer; respond with what is known or say what is missing"}};
            obs.content = "FAILED ELICITATION_EXPIRED: " + obs.error->message;
            entry.observation = std::move(obs);
            break;
        }
        case decisions::ElicitationState::completed:
        case decisions::ElicitationState::failed: {
            const auto error = call_error(record->result);
            const std::string next_question = error ? detail_text(*error, "elicitation_id") : std::string();
            const std::string approval = error ? detail_text(*error, "approval_id") : std::string();
            if (error && error->is(errors::kElicitationRequired) && !next_question.empty()) {
                run.elicitation_id = next_question;
                paused_again = input_required_event(run, *entry.action, next_question, *error);
                run.error = *error;
                run.error->details["run_id"] = run.id;
            } else if (error && error->is(errors::kApprovalRequired) && !approval.empty()) {
                run.status = RunStatus::awaiting_approval;
                run.approval_id = approval;
                run.elicitation_id.clear();
                paused_again = RunEvent{
                    RunEventType::approval_required, run.id, static_cast<int>(run.steps.size()),
                    tool + " needs approval: skillhost approvals approve " + approval + " (then the run resumes)",
                    json::object{{"approval_id", approval}, {"tool", tool}, {"args", entry.action->args}}};
                run.error = *error;
                run.error->details["run_id"] = run.id;
            } else {
                entry.observation = observation_of_call(
                    record->result, record->state == decisions::ElicitationState::completed && !error,
                    std::string(errors::kAnsweredCallFailed.name),
                    record->reason.empty() ? "the call run with the answer failed" : record->reason, tool,
                    parts_.config);
            }
            break;
        }
    }
    auto user = user_for(run);
    if (!user) return user.error();
    auto lease = lease_to_continue(run, cancel);
    if (!lease) return lease.error();
    if (paused_again) {
        // Still waiting, on what the step asked this time: stored with the new id, nothing driven.
        if (auto claimed = parts_.runs->claim(run, RunStatus::awaiting_input); !claimed) return claimed.error();
        if (events) {
            paused_again->lease_epoch = lease.value() ? lease.value()->epoch() : 0;
            events->on_event(*paused_again);
        }
        return run;
    }
    run.status = RunStatus::running;
    run.elicitation_id.clear();
    run.error.reset();
    return claim_and_drive(run, RunStatus::awaiting_input, user.value(), events, std::move(cancel),
                           std::move(lease.value()));
}

Result<std::unique_ptr<RunLeaseHold>> Operator::lease_to_continue(const store::Run& run,
                                                                  std::shared_ptr<std::atomic<bool>>& cancel) {
    if (auto versions = has_plugin_versions_of(run, parts_.catalog().get()); !versions) return versions.error();
    return hold_lease(run.id, cancel);
}

Result<store::Run> Operator::claim_and_drive(store::Run& run, RunStatus waited, const auth::UserContext& user,
                                             RunEventSubscriber* events, std::shared_ptr<std::atomic<bool>> cancel,
                                             std::unique_ptr<RunLeaseHold> lease) {
    // Compare-and-set: of two processes resuming this run (the daemon after a decision and a
    // `runs resume`), only the first drives it, so no skill call is repeated.
    if (auto claimed = parts_.runs->claim(run, waited); !claimed) return claimed.error();
    emit_resumed_observation(events, run, lease.get());
    return drive(run, user, events, 0, std::move(cancel), std::move(lease));
}

Result<store::Run> Operator::resume_interrupted(std::string_view run_id, RunEventSubscriber* events,
                                                std::shared_ptr<std::atomic<bool>> cancel) {
    auto loaded = parts_.runs->get(run_id);
    if (!loaded) return loaded.error();
    store::Run run = std::move(loaded.value());
    if (run.status != RunStatus::interrupted) {
        Error error{errors::kRunNotInterrupted,
                    "run " + run.id + " is " + store::to_string(run.status) +
                        "; only interrupted runs (their process died) continue from their last saved step",
                    {},
                    {}};
        error.details["run_id"] = run.id;
        error.details["status"] = store::to_string(run.status);
        return error;
    }
    auto user = user_for(run);
    if (!user) return user.error();
    if (auto versions = has_plugin_versions_of(run, parts_.catalog().get()); !versions) {
        // Recorded (the run stays interrupted) so whoever looks at it sees why this instance left
        // it to one that has the versions its steps used.
        if (!run.error || run.error->code != versions.error().code) {
            store::Run noted = run;
            noted.error = versions.error();
            (void)parts_.runs->claim(noted, RunStatus::interrupted);
        }
        return versions.error();
    }
    run.status = RunStatus::running;
    run.error.reset();
    auto lease = hold_lease(run.id, cancel);
    if (!lease) return lease.error();
    if (auto claimed = parts_.runs->claim(run, RunStatus::interrupted); !claimed) return claimed.error();
    return drive(run, user.value(), events, 0, std::move(cancel), std::move(lease.value()), true);
}

Result<store::Run> Operator::resume(std::string_view run_id, RunEventSubscriber* events,
                                    std::shared_ptr<std::atomic<bool>> cancel) {
    auto loaded = parts_.runs->get(run_id);
    if (!loaded) return loaded.error();
    if (loaded->status == RunStatus::interrupted) return resume_interrupted(run_id, events, std::move(cancel));
    if (loaded->status == RunStatus::awaiting_input) return resume_after_input(run_id, events, std::move(cancel));
    return resume_after_approval(run_id, events, std::move(cancel));
}

Result<store::Run> Operator::guide(std::string_view run_id, std::string_view text, RunEventSubscriber* events,
                                   std::shared_ptr<std::atomic<bool>> cancel) {
    if (text.find_first_not_of(" \t\n") == std::string_view::npos) {
        return Error{
            errors::kGuidanceEmpty, "the guidance is empty — say what the operator should do differently", {}, {}};
    }
    auto loaded = parts_.runs->get(run_id);
    if (!loaded) return loaded.error();
    store::Run run = std::move(loaded.value());
    if (run.status != RunStatus::needs_guidance) {
        Error error{
            errors::kRunNotWaitingForGuidance,
            "run " + run.id + " is " + store::to_string(run.status) + "; only runs that need guidance can be guided",
            {},
            {}};
        error.details["run_id"] = run.id;
        error.details["status"] = store::to_string(run.status);
        return error;
    }
    auto user = user_for(run);
    if (!user) return user.error();
    if (parts_.guidance) {
        store::GuidanceRecord record;
        record.run_id = run.id;
        record.user_id = run.user_id;
        record.goal = run.goal;
        record.text = std::string(text);
        json::object situation;
        if (run.error) situation["error"] = run.error->to_json();
        record.situation = std::move(situation);
        if (auto added = parts_.guidance->add_guidance(record); !added) return added.error();
        run.guidance_id = record.id;
    }
    run.history.push_back("User guidance: " + std::string(text));
    run.status = RunStatus::running;
    run.error.reset();
    // The guided continuation is a fresh attempt: old failures must not re-trigger stuck detection.
    run.attempt_first_step = run.steps.size();
    if (auto versions = has_plugin_versions_of(run, parts_.catalog().get()); !versions) return versions.error();
    auto lease = hold_lease(run.id, cancel);
    if (!lease) return lease.error();
    if (auto claimed = parts_.runs->claim(run, RunStatus::needs_guidance); !claimed) return claimed.error();
    return drive(run, user.value(), events, 0, std::move(cancel), std::move(lease.value()));
}

void Operator::learn_from_guidance(store::Run& run) {
    if (!parts_.guidance) return;
    const bool success = run.status == RunStatus::completed;
    if (run.status == RunStatus::running) return;
    if (auto st = parts_.guidance->set_outcome(run.guidance_id, success ? "succeeded" : "failed"); !st) {
        spdlog::warn("recording guidance outcome: {}", st.error().message);
    }
    if (!success) return;
    auto record = parts_.guidance->get_guidance(run.guidance_id);
    if (!record) return;
    store::Playbook playbook;
    playbook.user_id = run.user_id;
    playbook.goal = run.goal;
    playbook.guidance = record->text;
    playbook.source_guidance_id = record->id;
    for (std::size_t i = run.attempt_first_step; i < run.steps.size(); ++i) {
        const auto& step = run.steps[i];
        if (step.action && step.observation && step.observation->success) {
            playbook.steps.push_back(step.action->tool + " " + json::serialize(step.action->args));
        }
    }
    if (auto st = parts_.guidance->add_playbook(playbook); !st)
        spdlog::warn("storing playbook: {}", st.error().message);
    run.guidance_id.clear();
}

}  // namespace skillhost::op
