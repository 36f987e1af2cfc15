#include "app/elicitation_actions.hpp"

namespace skillhost::app {

namespace json = boost::json;

json::object ElicitationResolution::to_json() const {
    json::object out{{"elicitation", record.to_json()}, {"call", call.to_json()}};
    if (elicitation_id) out["next_elicitation_id"] = *elicitation_id;
    if (approval_id) out["approval_id"] = *approval_id;
    return out;
}

Result<policy::ElicitationRecord> visible_elicitation(HostRuntime& host, const policy::UserContext& user,
                                                      std::string_view id) {
    (void)host.elicitations->expire_due();
    auto record = host.elicitations->get(id);
    if (!record) return record.error();
    if (user.role != policy::Role::owner && record->user_id != user.user_id) {
        Error e{"ELICITATION_NOT_FOUND",
                "no elicitation " + std::string(id) + " for user " + user.user_id,
                {},
                {"`skillhost elicitations list` (GET /v1/elicitations) lists yours"}};
        e.details["elicitation_id"] = std::string(id);
        return e;
    }
    return record;
}

Result<std::vector<policy::ElicitationRecord>> list_elicitations(HostRuntime& host, const policy::UserContext& user,
                                                                 const policy::ElicitationFilter& filter) {
    (void)host.elicitations->expire_due();
    policy::ElicitationFilter mine = filter;
    if (user.role != policy::Role::owner) mine.user_id = user.user_id;
    return host.elicitations->list(mine);
}

Result<ElicitationResolution> answer_and_resume(HostRuntime& host, std::string_view id,
                                                const policy::UserContext& answerer,
                                                const policy::ElicitationAnswer& answer) {
    auto visible = visible_elicitation(host, answerer, id);
    if (!visible) return visible.error();
    auto answered = host.elicitations->answer(id, host.resolver(answerer), answer);
    if (!answered) return answered.error();
    const policy::ElicitationRecord& record = answered.value();

    exec::CallRequest request;
    request.skill_id = record.skill_id;
    request.args = record.arguments;
    request.requested_by = record.requested_by;
    request.elicitation_answers = record.prior_answers;
    request.elicitation_answers.push_back(
        json::object{{"request", record.request_json()}, {"answer", record.answer->to_json()}});
    // The answer is given once, so the call it starts is one intent: retried, it keeps this key.
    request.options.idempotency_key = record.id;
    auto user = host.user(record.user_id);
    exec::CallOutcome outcome;
    if (user) {
        request.user = user.value();
        outcome = host.pipeline->call(*host.snapshot(), request);
    } else {
        outcome.result = exec::failed_call(record.skill_id, user.error());
    }
    const bool went_on = outcome.result.ok || outcome.elicitation_id || outcome.approval_id;
    auto done =
        host.elicitations->complete(record.id, went_on, outcome.result.to_json(),
                                    went_on ? "" : outcome.result.error.code + ": " + outcome.result.error.message);
    if (!done) return done.error();
    return ElicitationResolution{std::move(done.value()), std::move(outcome.result), std::move(outcome.elicitation_id),
                                 std::move(outcome.approval_id)};
}

}  // namespace skillhost::app
