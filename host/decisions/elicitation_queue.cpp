#include "decisions/elicitation_queue.hpp"
#include "decisions/error_codes.hpp"

#include "audit/audit_log.hpp"
#include "decisions/process_identity.hpp"
#include "decisions/stored_row.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace skillhost::decisions {

namespace json = boost::json;

namespace {

constexpr const char* select_columns =
    "SELECT id, user_id, skill_id, arguments, requested_at_ms, requested_by, requested_token, message,"
    " requested_schema, prior_answers, expires_at_ms, state, action, content, answered_by, answered_at_ms,"
    " completed_at_ms, reason, result FROM elicitations";

constexpr std::string_view interrupted_elicitation =
    "interrupted: the host stopped while the answered call ran again; repeat the call to be asked again";

json::object object_or_empty(const json::value& value) {
    return value.is_object() ? value.get_object() : json::object();
}

ElicitationRecord row_to_record(const db::SqlRows& rows, std::size_t row) {
    ElicitationRecord record;
    record.id = rows.text(row, 0);
    record.user_id = rows.text(row, 1);
    record.skill_id = rows.text(row, 2);
    record.arguments = parse_stored_json(rows.text(row, 3));
    record.requested_at = from_ms(rows.integer(row, 4));
    record.requested_by = auth::Requester::from_text(rows.text(row, 5));
    record.requested_token = rows.text(row, 6);
    record.message = rows.text(row, 7);
    record.requested_schema = object_or_empty(parse_stored_json(rows.text(row, 8)));
    if (auto prior = parse_stored_json(rows.text(row, 9)); prior.is_array()) record.prior_answers = prior.get_array();
    record.expires_at = from_ms(rows.integer(row, 10));
    record.state = parse_elicitation_state(rows.text(row, 11)).value_or(ElicitationState::failed);
    if (!rows.is_null(row, 12))
        record.answer = ElicitationAnswer{rows.text(row, 12), object_or_empty(parse_stored_json(rows.text(row, 13)))};
    record.answered_by = rows.text(row, 14);
    if (!rows.is_null(row, 15)) record.answered_at = from_ms(rows.integer(row, 15));
    if (!rows.is_null(row, 16)) record.completed_at = from_ms(rows.integer(row, 16));
    record.reason = rows.text(row, 17);
    record.result = parse_stored_json(rows.text(row, 18));
    return record;
}

Error not_found(std::string_view id) {
    Error error{errors::kElicitationNotFound,
                "no elicitation `" + std::string(id) + "`; list yours with `skillhost elicitations list --all`",
                {},
                {}};
    error.details["elicitation_id"] = std::string(id);
    return error;
}

Error already_answered(const ElicitationRecord& record) {
    std::string how = std::string("is already ") + to_string(record.state);
    if (!record.answered_by.empty()) how += " (answered by " + record.answered_by + ")";
    Error error{errors::kElicitationAlreadyAnswered,
                "elicitation " + record.id + " " + how +
                    "; only a pending question can be answered — see `skillhost elicitations show " + record.id + "`",
                {},
                {}};
    error.details["elicitation_id"] = record.id;
    error.details["state"] = to_string(record.state);
    error.details["answered_by"] = record.answered_by;
    return error;
}

Error invalid_answer(std::string_view field, std::string message) {
    Error error{errors::kInvalidElicitationAnswer, std::move(message), {}, {}};
    error.details["field"] = std::string(field);
    return error;
}

std::optional<Error> answerer_problem(const Resolver& answerer, const ElicitationRecord& record) {
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
    : connection_(std::move(connection)), options_(std::move(options)) {}

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

TimePoint ElicitationQueue::now() const {
    return options_.clock ? options_.clock() : std::chrono::system_clock::now();
}

// The audit keeps which fields were answered, never their values: a form may ask for anything.
void ElicitationQueue::audit(const ElicitationRecord& record, std::string_view transition,
                             std::string_view actor) const {
    if (options_.audit == nullptr) return;
    json::object fields;
    fields["user"] = record.user_id;
    fields["skill"] = record.skill_id;
    fields["elicitation_id"] = record.id;
    fields["transition"] = transition;
    fields["state"] = to_string(record.state);
    fields["actor"] = actor;
    fields["requested_by"] = record.requested_by.to_text();
    fields["message"] = record.message;
    if (record.answer) {
        fields["action"] = record.answer->action;
        json::array names;
        for (const auto& member : record.answer->content) names.emplace_back(member.key());
        fields["fields"] = std::move(names);
    }
    if (!record.reason.empty()) fields["reason"] = record.reason;
    if (auto st = options_.audit->append("elicitation", std::move(fields)); !st)
        spdlog::warn("could not audit elicitation {} ({}): {}", record.id, transition, st.error().message);
}

Result<ElicitationRecord> ElicitationQueue::get(std::string_view id) const {
    auto rows =
        connection_->run("reading an elicitation", std::string(select_columns) + " WHERE id = ?", {std::string(id)});
    if (!rows) return rows.error();
    if (rows->size() == 0) return not_found(id);
    return row_to_record(*rows, 0);
}

Result<ElicitationRecord> ElicitationQueue::enqueue(const ElicitationAsk& ask) {
    auto pending =
        connection_->run("counting pending elicitations",
                         "SELECT COUNT(*) FROM elicitations WHERE user_id = ? AND state = 'pending'", {ask.user_id});
    if (!pending) return pending.error();
    if (pending->size() > 0 && pending->integer(0, 0) >= static_cast<std::int64_t>(options_.max_pending_per_user)) {
        Error e{errors::kElicitationQueueFull,
                "user " + ask.user_id + " already has " + std::to_string(options_.max_pending_per_user) +
                    " unanswered questions from skills; answer or cancel some with `skillhost elicitations` first",
                {},
                {}};
        e.details["limit"] = options_.max_pending_per_user;
        return e;
    }
    ElicitationRecord record;
    record.id = new_record_id("eli-");
    record.user_id = ask.user_id;
    record.skill_id = ask.skill_id;
    record.arguments = ask.arguments;
    record.requested_by = ask.requested_by;
    record.requested_token = ask.requested_token;
    record.message = ask.request.message;
    record.requested_schema = ask.request.requested_schema;
    record.prior_answers = ask.prior_answers;
    record.requested_at = now();
    record.expires_at = record.requested_at + options_.ttl;
    auto inserted = connection_->run(
        "queueing an elicitation",
        "INSERT INTO elicitations (id, user_id, skill_id, arguments, requested_at_ms, requested_by, requested_token,"
        " message, requested_schema, prior_answers, expires_at_ms, state)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
        {record.id, record.user_id, record.skill_id, json::serialize(record.arguments), to_ms(record.requested_at),
         record.requested_by.to_text(), text_or_null(record.requested_token), record.message,
         json::serialize(record.requested_schema), json::serialize(record.prior_answers), to_ms(record.expires_at)});
    if (!inserted) return inserted.error();
    audit(record, "asked", record.user_id);
    return record;
}

Result<std::vector<ElicitationRecord>> ElicitationQueue::list(const ElicitationFilter& filter) const {
    std::vector<std::string> states;
    for (const auto state : filter.states) states.emplace_back(to_string(state));
    std::vector<db::SqlValue> params;
    const std::string sql = listing_sql(select_columns, filter.user_id, states, filter.limit, params);
    auto rows = connection_->run("listing elicitations", sql, params);
    if (!rows) return rows.error();
    std::vector<ElicitationRecord> out;
    out.reserve(rows->size());
    for (std::size_t row = 0; row < rows->size(); ++row) out.push_back(row_to_record(*rows, row));
    return out;
}

Error ElicitationQueue::lost_race(std::string_view id) const {
    auto now_stored = get(id);
    if (!now_stored) return now_stored.error();
    return already_answered(*now_stored);
}

Error ElicitationQueue::expire_now(ElicitationRecord& record, TimePoint at, std::string_view actor) {
    const std::string reason = "expired at " + format_utc_timestamp(record.expires_at) + " before anyone answered it";
    auto expired = connection_->run("expiring an elicitation",
                                    "UPDATE elicitations SET state = 'expired', answered_at_ms = ?, reason = ? "
                                    "WHERE id = ? AND state = 'pending'",
                                    {to_ms(at), reason, record.id});
    if (!expired) return expired.error();
    if (expired->affected != 1) return lost_race(record.id);
    record.state = ElicitationState::expired;
    record.answered_at = at;
    record.reason = reason;
    audit(record, "expired", actor);
    Error error{errors::kElicitationExpired,
                "elicitation " + record.id + " expired at " + format_utc_timestamp(record.expires_at) +
                    " and can no longer be answered; repeat the original call to be asked again",
                {},
                {}};
    error.details["elicitation_id"] = record.id;
    error.details["state"] = "expired";
    return error;
}

// A read, the checks, then one compare-and-set UPDATE (`WHERE state = 'pending'`) committed on its
// own: of several answers exactly one changes the row; the others are told who answered.
Result<ElicitationRecord> ElicitationQueue::answer(std::string_view id, const Resolver& answerer,
                                                   const ElicitationAnswer& given) {
    auto record = get(id);
    if (!record) return record.error();
    if (auto problem = answerer_problem(answerer, *record)) return *problem;
    if (record->state != ElicitationState::pending) return already_answered(*record);
    const TimePoint at = now();
    if (at >= record->expires_at) return expire_now(*record, at, answerer.user_id);
    ElicitationAnswer answer = given;
    if (answer.action != "accept") answer.content = {};
    const std::string content = json::serialize(answer.content);
    if (content.size() > kMaxElicitationAnswerBytes)
        return invalid_answer("content", "the answer has " + std::to_string(content.size()) + " bytes, more than " +
                                             std::to_string(kMaxElicitationAnswerBytes) + "; shorten it");
    if (answer.action == "accept") {
        if (auto problem = form_answer_problem(record->requested_schema, answer.content))
            return invalid_answer(problem->field, "the answer does not fit the form: " + problem->message +
                                                      "; `skillhost elicitations show " + record->id +
                                                      "` lists the fields");
    }
    const ProcessIdentity self = current_process_identity();
    auto claimed = connection_->run(
        "answering an elicitation",
        "UPDATE elicitations SET state = 'answered', action = ?, content = ?, answered_by = ?, answered_at_ms = ?,"
        " claim_host = ?, claim_pid = ?, claim_start_ticks = ? WHERE id = ? AND state = 'pending'",
        {answer.action, content, answerer.user_id, to_ms(at), self.host, self.pid, self.start_ticks, std::string(id)});
    if (!claimed) return claimed.error();
    if (claimed->affected != 1) return lost_race(id);
    record->state = ElicitationState::answered;
    record->answer = std::move(answer);
    record->answered_by = answerer.user_id;
    record->answered_at = at;
    audit(*record, "answered", answerer.user_id);
    return record;
}

Result<ElicitationRecord> ElicitationQueue::complete(std::string_view id, bool ok, const json::value& result,
                                                     std::string_view reason) {
    const TimePoint at = now();
    const ElicitationState state = ok ? ElicitationState::completed : ElicitationState::failed;
    auto updated = connection_->run(
        "recording what an answered elicitation led to",
        "UPDATE elicitations SET state = ?, completed_at_ms = ?, result = ?, reason = ? "
        "WHERE id = ? AND state = 'answered'",
        {std::string(to_string(state)), to_ms(at), json::serialize(result), text_or_null(reason), std::string(id)});
    if (!updated) return updated.error();
    auto record = get(id);
    if (!record) return record.error();
    if (updated->affected != 1) {
        Error error{errors::kElicitationNotAnswered,
                    "elicitation " + record->id + " is " + to_string(record->state) +
                        ", not answered, so what followed cannot be recorded",
                    {},
                    {}};
        error.details["elicitation_id"] = record->id;
        error.details["state"] = to_string(record->state);
        return error;
    }
    audit(*record, to_string(state), record->answered_by);
    return record;
}

Result<std::vector<std::string>> ElicitationQueue::expire_due(TimePoint at) {
    auto due = connection_->run(
        "finding expired elicitations",
        std::string(select_columns) + " WHERE state = 'pending' AND expires_at_ms <= ? ORDER BY expires_at_ms",
        {to_ms(at)});
    if (!due) return due.error();
    std::vector<std::string> ids;
    for (std::size_t row = 0; row < due->size(); ++row) {
        auto record = row_to_record(*due, row);
        record.reason = "expired at " + format_utc_timestamp(record.expires_at) + " before anyone answered it";
        auto updated = connection_->run("expiring elicitations",
                                        "UPDATE elicitations SET state = 'expired', answered_at_ms = ?, reason = ? "
                                        "WHERE id = ? AND state = 'pending'",
                                        {to_ms(at), record.reason, record.id});
        if (!updated) return updated.error();
        if (updated->affected != 1) continue;  // answered, or expired elsewhere, meanwhile
        record.state = ElicitationState::expired;
        record.answered_at = at;
        audit(record, "expired", "host");
        ids.push_back(record.id);
    }
    return ids;
}

Result<std::vector<std::string>> ElicitationQueue::recover_interrupted() {
    return recover_interrupted([](const ProcessIdentity& answerer) { return process_is_alive(answerer); });
}

Result<std::vector<std::string>> ElicitationQueue::recover_interrupted(
    const std::function<bool(const ProcessIdentity& answerer)>& answerer_alive) {
    auto claimed = connection_->run("finding interrupted elicitations",
                                    "SELECT id, claim_host, claim_pid, claim_start_ticks FROM elicitations"
                                    " WHERE state = 'answered'",
                                    {});
    if (!claimed) return claimed.error();
    std::vector<std::string> recovered;
    for (std::size_t row = 0; row < claimed->size(); ++row) {
        const ProcessIdentity answerer{claimed->text(row, 1), claimed->integer(row, 2), claimed->integer(row, 3)};
        if (answerer_alive(answerer)) continue;
        const std::string id = claimed->text(row, 0);
        auto done = complete(id, false, nullptr, interrupted_elicitation);
        if (done) recovered.push_back(id);
    }
    return recovered;
}

}  // namespace skillhost::decisions
