#include "decisions/elicitation_queue.hpp"
#include "decisions/error_codes.hpp"

#include "decisions/process_identity.hpp"
#include "decisions/decision_errors.hpp"
#include "decisions/typed_decision.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace skillhost::decisions {

namespace json = boost::json;

namespace {

json::object object_or_empty(const json::value* value) {
    return value && value->is_object() ? value->get_object() : json::object();
}

std::string_view message_of(const PendingDecision& record) {
    const json::value* message = record.request.if_contains("message");
    return message && message->is_string() ? std::string_view(message->get_string()) : std::string_view();
}

ElicitationRecord to_record(const PendingDecision& decision) {
    ElicitationRecord record;
    copy_call_fields(decision, record);
    record.message = std::string(message_of(decision));
    record.requested_schema = object_or_empty(decision.request.if_contains("requestedSchema"));
    if (const json::value* prior = decision.request.if_contains("prior_answers"); prior && prior->is_array())
        record.prior_answers = prior->get_array();
    record.state = kind_state<ElicitationState>(decision.state);
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

Error invalid_answer(std::string_view field, std::string message) {
    Error error{errors::kInvalidElicitationAnswer, std::move(message), {}, {}};
    error.details["field"] = std::string(field);
    return error;
}

std::optional<Error> answerer_problem(const Resolver& answerer, const PendingDecision& record) {
    if (auto not_theirs = not_theirs_to_decide(rules_of(DecisionKind::question), record, answerer)) return not_theirs;
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
    : DecisionQueue(std::move(connection), rules_of(DecisionKind::question),
                    PendingDecisionsOptions{options.ttl, std::move(options.clock), options.audit}, to_record),
      max_pending_per_user_(options.max_pending_per_user) {}

Result<std::unique_ptr<ElicitationQueue>> ElicitationQueue::open(const db::StorageLocation& location,
                                                                 ElicitationQueueOptions options) {
    return open_queue<ElicitationQueue>(location, [&](std::unique_ptr<db::BackendConnection> connection) {
        return std::unique_ptr<ElicitationQueue>(new ElicitationQueue(std::move(connection), std::move(options)));
    });
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
    return typed(decisions_.add(std::move(draft)));
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
    return typed(decisions_.claim(std::move(*record), answerer.user_id, std::move(stored)));
}

}  // namespace skillhost::decisions
