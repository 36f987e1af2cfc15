#include "app/elicitation_actions.hpp"
#include "app/host_parts.hpp"
#include "app/error_codes.hpp"
#include "operator/error_codes.hpp"
#include "decisions/error_codes.hpp"

namespace skillhost::app {

namespace json = boost::json;

namespace {

// The run that asked `record`'s question, when it no longer waits on it: the question is closed as
// cancelled (so no later answer runs the skill for it) and the answer refused.
std::optional<Error> run_moved_on(HostRuntime& host, const decisions::ElicitationRecord& record,
                                  const auth::UserContext& answerer, const WaitingRun& waiting) {
    const auto run_id = record.requested_by.run_id();
    if (!run_id || !waiting.load) return std::nullopt;
    auto run = waiting.load(*run_id);
    if (!run) return std::nullopt;  // not stored here (yet): the resumer reports what it finds
    if (run->status == store::RunStatus::awaiting_input && run->elicitation_id == record.id) return std::nullopt;
    const std::string status = store::to_string(run->status);
    if (run->status == store::RunStatus::running) {
        // It asked a moment ago and is still saving its pause: the question stands.
        Error e{errors::kRunStillWorking,
                "run " + *run_id + " that asked this question is still saving its pause; answer again in a moment",
                {},
                {"wait for the run's `status` event (awaiting_input), then answer"}};
        e.details["run_id"] = *run_id;
        e.details["elicitation_id"] = record.id;
        return e;
    }
    Error e{errors::kRunNotAwaitingInput,
            "run " + *run_id + " that asked this question is " + status +
                " and no longer waits for it; the question is closed and the answer not used",
            {},
            {"start a new run (or call the skill directly) to be asked again"}};
    e.details["run_id"] = *run_id;
    e.details["status"] = status;
    e.details["elicitation_id"] = record.id;
    if (parts_of(host).elicitations->answer(record.id, host.resolver(answerer),
                                            decisions::ElicitationAnswer{"cancel", {}}))
        (void)parts_of(host).elicitations->complete(record.id, false, json::object{{"error", e.to_json()}},
                                                    "run " + *run_id + " is " + status);
    return e;
}

}  // namespace

json::object ElicitationResolution::to_json() const {
    json::object out{{"elicitation", record.to_json()}, {"call", call.to_json()}};
    if (elicitation_id) out["next_elicitation_id"] = *elicitation_id;
    if (approval_id) out["approval_id"] = *approval_id;
    if (run) out["run"] = run_resumption_json(*run);
    return out;
}

Result<ElicitationResolution> answer_and_resume(HostRuntime& host, std::string_view id,
                                                const auth::UserContext& answerer,
                                                const decisions::ElicitationAnswer& answer, const WaitingRun& run) {
    auto visible = visible_decision<decisions::ElicitationRecord>(host, answerer, id);
    if (!visible) return visible.error();
    if (visible->state == decisions::ElicitationState::pending) {
        if (auto moved_on = run_moved_on(host, visible.value(), answerer, run)) return *moved_on;
    }
    auto answered = parts_of(host).elicitations->answer(id, host.resolver(answerer), answer);
    if (!answered) return answered.error();
    const decisions::ElicitationRecord& record = answered.value();

    exec::CallRequest request;
    request.skill_id = record.skill_id;
    request.args = record.arguments;
    request.requested_by = record.requested_by;
    request.elicitation_answers = record.prior_answers;
    request.elicitation_answers.push_back(
        json::object{{"request", record.request_json()}, {"answer", record.answer->to_json()}});
    // The answer is given once, so the call it starts is one intent: retried, it keeps this key.
    request.idempotency_key = record.id;
    auto user = host.user(record.user_id);
    exec::CallOutcome outcome;
    if (user) {
        request.user = user.value();
        outcome = parts_of(host).pipeline->call(*host.snapshot(), request);
    } else {
        outcome.result = exec::failed_call(record.skill_id, user.error());
    }
    const bool went_on = outcome.result.ok || outcome.elicitation_id || outcome.approval_id;
    auto done = parts_of(host).elicitations->complete(
        record.id, went_on, outcome.result.to_json(),
        went_on ? "" : outcome.result.error.code + ": " + outcome.result.error.message);
    if (!done) return done.error();
    ElicitationResolution resolution{std::move(done.value()), std::move(outcome.result),
                                     std::move(outcome.elicitation_id), std::move(outcome.approval_id), std::nullopt};
    if (const auto run_id = resolution.record.requested_by.run_id(); run_id && run.resume)
        resolution.run = run.resume(*run_id);
    return resolution;
}

}  // namespace skillhost::app
