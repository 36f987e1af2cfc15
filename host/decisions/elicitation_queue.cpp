#include "decisions/elicitation_queue.hpp"
#include "decisions/error_codes.hpp"

#include "decisions/process_identity.hpp"
#include "decisions/typed_decision.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace skillhost::decisions {

namespace json = boost::json;

namespace {

constexpr std::string_view interrupted_elicitation =
    "interrupted: the host stopped while the answered call ran again; repeat the call to be asked again";

json::object object_or_empty(const json::value* value) {
    return value && value->is_object() ? value->get_object() : json::object();
}

const char* question_word(DecisionState state) {
    return to_string(elicitation_state(state));
}

Error not_found(std::string_view id) {
    Error error{errors::kElicitationNotFound,
                "no elicitation `" + std::string(id) + "`; list yours with `skillhost elicitations list --all`",
                {},
                {}};
    error.details["elicitation_id"] = std::string(id);
    return error;
}

Error already_answered(const PendingDecision& record) {
    const char* state = question_word(record.state);
    std::string how = std::string("is already ") + state;
    if (!record.resolved_by.empty()) how += " (answered by " + record.resolved_by + ")";
    Error error{errors::kElicitationAlreadyAnswered,
                "elicitation " + record.id + " " + how +
                    "; only a pending question can be answered — see `skillhost elicitations show " + record.id + "`",
                {},
                {}};
    error.details["elicitation_id"] = record.id;
    error.details["state"] = state;
    error.details["answered_by"] = record.resolved_by;
    return error;
}

Error expired(const PendingDecision& record) {
    Error error{errors::kElicitationExpired,
                "elicitation " + record.id + " expired at " + format_utc_timestamp(record.expires_at) +
                    " and can no longer be answered; repeat the original call to be asked again",
                {},
                {}};
    error.details["elicitation_id"] = record.id;
    error.details["state"] = "expired";
    return error;
}

Error not_answered(const PendingDecision& record) {
    const char* state = question_word(record.state);
    Error error{errors::kElicitationNotAnswered,
                "elicitation " + record.id + " is " + state + ", not answered, so what followed cannot be recorded",
                {},
                {}};
    error.details["elicitation_id"] = record.id;
    error.details["state"] = state;
    return error;
}

std::string_view message_of(const PendingDecision& record) {
    const json::value* message = record.request.if_contains("message");
    return message && message->is_string() ? std::string_view(message->get_string()) : std::string_view();
}

// The audit keeps which fields were answered, never their values: a form may ask for anything.
void audit_fields(const PendingDecision& record, json::object& fields) {
    fields["message"] = message_of(record);
    if (!record.answer.is_object()) return;
    const json::object& answer = record.answer.get_object();
    if (const json::value* action = answer.if_contains("action")) fields["action"] = *action;
    json::array names;
    for (const auto& member : object_or_empty(answer.if_contains("content"))) names.emplace_back(member.key());
    fields["fields"] = std::move(names);
}

constexpr DecisionKindRules question_rules{
    .kind = DecisionKind::question,
    .id_prefix = "eli-",
    .noun = "elicitation",
    .requested = "asked",
    .unresolved = "answered",
    .interrupted_reason = interrupted_elicitation,
    .state_word = question_word,
    .not_found = not_found,
    .already_decided = already_answered,
    .expired = expired,
    .not_claimed = not_answered,
    .audit_fields = audit_fields,
};

ElicitationRecord to_record(const PendingDecision& decision) {
    ElicitationRecord record;
    copy_call_fields(decision, record);
    record.message = std::string(message_of(decision));
    record.requested_schema = object_or_empty(decision.request.if_contains("requestedSchema"));
    if (const json::value* prior = decision.request.if_contains("prior_answers"); prior && prior->is_array())
        record.prior_answers = prior->get_array();
    record.state = elicitation_state(decision.state);
    if (decision.answer.is_object()) {
        const json::object& answer = decision.answer.get_object();
        const json::value* action = answer.if_contains("action");
        record.answer = ElicitationAnswer{action && action->is_string() ? std::string(action->get_string()) : "cancel",
                                          object_or_empty(answer.if_contains("content"))};
    }
    record.answered_by = decision.resolved_by;
    record.answered_at = decision.resolved_at;
    return record;
}

Result<ElicitationRecord> to_record(Result<PendingDecision> decision) {
    if (!decision) return decision.error();
    return to_record(*decision);
}

Error invalid_answer(std::string_view field, std::string message) {
    Error error{errors::kInvalidElicitationAnswer, std::move(message), {}, {}};
    error.details["field"] = std::string(field);
    return error;
}

std::optional<Error> answerer_problem(const Resolver& answerer, const PendingDecision& record) {
    if (answerer.role != auth::Role::owner && answerer.user_id != record.user_id) {
        Error e{errors::kNotAllowedToAnswer,
                "user " + answerer.user_id + " may not answer elicitation " + record.id + ", which asks " +
                    record.user_id + "; only the asked user or an owner may answer it",
                {},
                {}};
        e.details["elicitation_id"] = record.id;
        e.details["user"] = answerer.user_id;
        return e;
    }
    // The answer makes the skill run again: it is a call.
    if (!answerer.credential.may(auth::Scope::call)) {
        Error e = auth::missing_scope_error(auth::Scope::call, "answering a skill's question (the skill runs again)",
                                            answerer.credential);
        e.details["elicitation_id"] = record.id;
        return e;
    }
    return std::nullopt;
}

}  // namespace

Result<ElicitationAnswer> parse_elicitation_answer(const json::object& body) {
    const json::value* action = body.if_contains("action");
    if (!action || !action->is_string())
        return invalid_answer("action", "field 'action' must be \"accept\", \"decline\" or \"cancel\"");
    ElicitationAnswer answer{std::string(action->get_string()), {}};
    if (answer.action != "accept" && answer.action != "decline" && answer.action != "cancel")
        return invalid_answer("action", "field 'action' must be \"accept\", \"decline\" or \"cancel\", not \"" +
                                            answer.action.substr(0, 40) + "\"");
    const json::value* content = body.if_contains("content");
    if (content && !content->is_null()) {
        if (!content->is_object())
            return invalid_answer("content", "field 'content' must be an object of the form's fields");
        if (answer.action != "accept")
            return invalid_answer(
                "content", "field 'content' goes only with \"accept\"; a " + answer.action + " carries no answer");
        answer.content = content->get_object();
    }
    return answer;
}

ElicitationQueue::ElicitationQueue(std::unique_ptr<db::BackendConnection> connection, ElicitationQueueOptions options)
    : decisions_(std::move(connection), question_rules,
                 PendingDecisionsOptions{options.ttl, std::move(options.clock), options.audit}),
      max_pending_per_user_(options.max_pending_per_user) {}

Result<std::unique_ptr<ElicitationQueue>> ElicitationQueue::open(const db::StorageLocation& location,
                                                                 ElicitationQueueOptions options) {
    auto connection = db::BackendConnection::open(location);
    if (!connection) return connection.error();
    std::unique_ptr<ElicitationQueue> queue(new ElicitationQueue(std::move(*connection), std::move(options)));
    auto recovered = queue->recover_interrupted();
    if (!recovered) return recovered.error();
    for (const auto& id : *recovered)
        spdlog::warn("elicitation {} was answered and its call was running when the host stopped; marked failed", id);
    return queue;
}

Result<ElicitationRecord> ElicitationQueue::get(std::string_view id) const {
    return to_record(decisions_.get(id));
}

Result<ElicitationRecord> ElicitationQueue::enqueue(const ElicitationAsk& ask) {
    auto pending = decisions_.count_pending(ask.user_id);
    if (!pending) return pending.error();
    if (*pending >= static_cast<std::int64_t>(max_pending_per_user_)) {
        Error e{errors::kElicitationQueueFull,
                "user " + ask.user_id + " already has " + std::to_string(max_pending_per_user_) +
                    " unanswered questions from skills; answer or cancel some with `skillhost elicitations` first",
                {},
                {}};
        e.details["limit"] = max_pending_per_user_;
        return e;
    }
    PendingDecision draft = decision_for(ask);
    draft.request = json::object{{"message", ask.request.message},
                                 {"requestedSchema", ask.request.requested_schema},
                                 {"prior_answers", ask.prior_answers}};
    return to_record(decisions_.add(std::move(draft)));
}

Result<ElicitationRecord> ElicitationQueue::get_visible(std::string_view id, const Resolver& viewer) {
    return to_record(decisions_.get_visible(id, viewer.user_id, viewer.role == auth::Role::owner));
}

Result<std::vector<ElicitationRecord>> ElicitationQueue::list_visible(const ElicitationFilter& filter,
                                                                      const Resolver& viewer) {
    return records_of<ElicitationRecord>(
        decisions_.list_visible(decision_filter(filter), viewer.user_id, viewer.role == auth::Role::owner),
        [](const PendingDecision& decision) { return to_record(decision); });
}

Result<std::vector<ElicitationRecord>> ElicitationQueue::list(const ElicitationFilter& filter) const {
    return records_of<ElicitationRecord>(decisions_.list(decision_filter(filter)),
                                         [](const PendingDecision& decision) { return to_record(decision); });
}

// A read, the checks, then the one compare-and-set of PendingDecisions: of several answers exactly
// one changes the row; the others are told who answered.
Result<ElicitationRecord> ElicitationQueue::answer(std::string_view id, const Resolver& answerer,
                                                   const ElicitationAnswer& given) {
    auto record = decisions_.get(id);
    if (!record) return record.error();
    if (auto problem = answerer_problem(answerer, *record)) return *problem;
    if (auto closed = decisions_.closed(*record, answerer.user_id)) return *closed;
    ElicitationAnswer answer = given;
    if (answer.action != "accept") answer.content = {};
    const std::string content = json::serialize(answer.content);
    if (content.size() > kMaxElicitationAnswerBytes)
        return invalid_answer("content", "the answer has " + std::to_string(content.size()) + " bytes, more than " +
                                             std::to_string(kMaxElicitationAnswerBytes) + "; shorten it");
    if (answer.action == "accept") {
        if (auto problem =
                form_answer_problem(object_or_empty(record->request.if_contains("requestedSchema")), answer.content))
            return invalid_answer(problem->field, "the answer does not fit the form: " + problem->message +
                                                      "; `skillhost elicitations show " + record->id +
                                                      "` lists the fields");
    }
    json::value stored = json::object{{"action", answer.action}, {"content", std::move(answer.content)}};
    return to_record(decisions_.claim(std::move(*record), answerer.user_id, std::move(stored)));
}

Result<ElicitationRecord> ElicitationQueue::complete(std::string_view id, bool ok, const json::value& result,
                                                     std::string_view reason) {
    return to_record(decisions_.complete(id, ok, result, reason));
}

Result<std::vector<std::string>> ElicitationQueue::expire_due(TimePoint at) {
    return decisions_.expire_due(at);
}

Result<std::vector<std::string>> ElicitationQueue::recover_interrupted() {
    return decisions_.recover_interrupted(process_is_alive);
}

Result<std::vector<std::string>> ElicitationQueue::recover_interrupted(
    const std::function<bool(const ProcessIdentity& answerer)>& answerer_alive) {
    return decisions_.recover_interrupted(answerer_alive);
}

}  // namespace skillhost::decisions
