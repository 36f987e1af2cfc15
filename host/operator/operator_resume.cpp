// The ways a paused run continues: after its approval was resolved, and with the user's guidance
// (which, when the guided run succeeds, becomes a playbook). The ReAct loop itself is operator.cpp.
#include "operator/observation_format.hpp"
#include "operator/operator.hpp"
#include "operator/run_lease_hold.hpp"
#include "store/run_plugin_versions.hpp"

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

}  // namespace

Status Operator::can_continue_here(const store::Run& run) const {
    return has_plugin_versions_of(run, parts_.catalog().get());
}

Result<store::Run> Operator::resume_after_approval(std::string_view run_id, RunEventSubscriber* events,
                                                   std::shared_ptr<std::atomic<bool>> cancel) {
    auto loaded = parts_.runs->get(run_id);
    if (!loaded) return loaded.error();
    store::Run run = std::move(loaded.value());
    if (run.status != RunStatus::awaiting_approval || run.approval_id.empty() || run.steps.empty() ||
        !run.steps.back().action) {
        Error error{"RUN_NOT_AWAITING_APPROVAL",
                    "run " + run.id + " is " + store::to_string(run.status) + ", not waiting for an approval",
                    {},
                    {}};
        error.details["run_id"] = run.id;
        error.details["status"] = store::to_string(run.status);
        return error;
    }
    auto record = parts_.pipeline->parts().approvals->get(run.approval_id);
    if (!record) return record.error();
    auto& entry = run.steps.back();
    store::Observation obs;
    obs.mode = parts_.config.observation_mode;
    switch (record->state) {
        case policy::ApprovalState::pending:
        case policy::ApprovalState::approved: {
            Error error{"APPROVAL_STILL_PENDING",
                        "approval " + run.approval_id + " is still " + policy::to_string(record->state) +
                            " — approve it with `skillhost approvals approve " + run.approval_id +
                            "` or reject it first",
                        {},
                        {}};
            error.details["approval_id"] = run.approval_id;
            error.details["run_id"] = run.id;
            return error;
        }
        case policy::ApprovalState::executed:
        case policy::ApprovalState::failed: {
            // The approval record holds {ok, result} or {ok:false, error} (SkillResult::to_json).
            const json::value& result = record->result;
            const auto* o = result.is_object() ? &result.as_object() : nullptr;
            const bool ok = record->state == policy::ApprovalState::executed;
            obs.success = ok;
            if (ok) {
                obs.raw = o && o->contains("result") ? o->at("result") : result;
                obs.content = limit_text(render_observation(obs.mode, entry.action->tool, obs.raw),
                                         parts_.config.observation_max_chars);
            } else {
                const json::object* err =
                    o && o->contains("error") && o->at("error").is_object() ? &o->at("error").as_object() : nullptr;
                store::ObservationError oe{
                    "APPROVED_CALL_FAILED", record->reason.empty() ? "the approved call failed" : record->reason, {}};
                if (err) {
                    if (const auto* c = err->if_contains("code"); c && c->is_string())
                        oe.code = std::string(c->as_string());
                    if (const auto* m = err->if_contains("message"); m && m->is_string())
                        oe.message = std::string(m->as_string());
                }
                obs.raw = result;
                obs.content = "FAILED " + oe.code + ": " + oe.message;
                obs.error = std::move(oe);
            }
            break;
        }
        case policy::ApprovalState::rejected:
        case policy::ApprovalState::expired: {
            const bool rejected = record->state == policy::ApprovalState::rejected;
            const std::string message =
                rejected ? "user rejected the action" + (record->reason.empty() ? std::string() : ": " + record->reason)
                         : "the approval expired before anyone approved it";
            obs.success = false;
            obs.raw = json::object{{"ok", false}, {"approval", record->to_json()}};
            obs.error =
                store::ObservationError{rejected ? "USER_REJECTED" : "APPROVAL_EXPIRED",
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
    // Compare-and-set: of two processes resuming this run (the daemon after an approval and a
    // `runs resume`), only the first drives it, so no skill call is repeated.
    if (auto versions = has_plugin_versions_of(run, parts_.catalog().get()); !versions) return versions.error();
    auto lease = hold_lease(run.id, cancel);
    if (!lease) return lease.error();
    if (auto claimed = parts_.runs->claim(run, RunStatus::awaiting_approval); !claimed) return claimed.error();
    if (events) {
        RunEvent event{RunEventType::observation, run.id, static_cast<int>(run.steps.size()),
                       entry.observation->content,
                       json::object{{"tool", entry.action->tool}, {"success", entry.observation->success}}};
        events->on_event(event);
    }
    return drive(run, user.value(), events, 0, std::move(cancel), std::move(lease.value()));
}

Result<store::Run> Operator::resume_interrupted(std::string_view run_id, RunEventSubscriber* events,
                                                std::shared_ptr<std::atomic<bool>> cancel) {
    auto loaded = parts_.runs->get(run_id);
    if (!loaded) return loaded.error();
    store::Run run = std::move(loaded.value());
    if (run.status != RunStatus::interrupted) {
        Error error{"RUN_NOT_INTERRUPTED",
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
    return resume_after_approval(run_id, events, std::move(cancel));
}

Result<store::Run> Operator::guide(std::string_view run_id, std::string_view text, RunEventSubscriber* events,
                                   std::shared_ptr<std::atomic<bool>> cancel) {
    if (text.find_first_not_of(" \t\n") == std::string_view::npos) {
        return Error{"GUIDANCE_EMPTY", "the guidance is empty — say what the operator should do differently", {}, {}};
    }
    auto loaded = parts_.runs->get(run_id);
    if (!loaded) return loaded.error();
    store::Run run = std::move(loaded.value());
    if (run.status != RunStatus::needs_guidance) {
        Error error{
            "RUN_NOT_WAITING_FOR_GUIDANCE",
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
