#include "decisions/definition_change_queue.hpp"

#include "auth/credential.hpp"
#include "decisions/decision_errors.hpp"
#include "decisions/definition_diff.hpp"
#include "decisions/error_codes.hpp"
#include "decisions/typed_decision.hpp"

namespace skillhost::decisions {
namespace json = boost::json;

namespace {

std::string text_of(const json::object& request, std::string_view key) {
    const json::value* value = request.if_contains(key);
    return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

DefinitionChangeRecord to_record(const PendingDecision& decision) {
    DefinitionChangeRecord record;
    copy_call_fields(decision, record);
    const json::object& request = decision.request;
    record.server = text_of(request, "server");
    record.tool = text_of(request, "tool");
    record.old_hash = text_of(request, "old_hash");
    record.new_hash = text_of(request, "new_hash");
    if (const json::value* old_definition = request.if_contains("old_definition"))
        record.old_definition = *old_definition;
    if (const json::value* new_definition = request.if_contains("new_definition");
        new_definition && new_definition->is_object())
        record.new_definition = new_definition->get_object();
    if (const json::value* diff = request.if_contains("diff"); diff && diff->is_array())
        record.diff = diff->get_array();
    record.state = kind_state<DefinitionChangeState>(decision.state);
    record.decided_by = decision.resolved_by;
    record.decided_at = decision.resolved_at;
    return record;
}

}  // namespace

DefinitionChangeQueue::DefinitionChangeQueue(std::unique_ptr<db::BackendConnection> connection,
                                             DefinitionChangeQueueOptions options)
    : DecisionQueue(std::move(connection), rules_of(DecisionKind::definition_change),
                    PendingDecisionsOptions{options.ttl, std::move(options.clock), options.audit}, to_record) {}

Result<std::unique_ptr<DefinitionChangeQueue>> DefinitionChangeQueue::open(const db::StorageLocation& location,
                                                                           DefinitionChangeQueueOptions options) {
    return open_queue<DefinitionChangeQueue>(location, [&](std::unique_ptr<db::BackendConnection> connection) {
        return std::unique_ptr<DefinitionChangeQueue>(
            new DefinitionChangeQueue(std::move(connection), std::move(options)));
    });
}

Result<DefinitionChangeRecord> DefinitionChangeQueue::request(const DefinitionChangeAsk& ask) {
    DecisionAsk call;
    call.user_id = ask.user_id.empty() ? std::string("skillhost") : ask.user_id;
    call.skill_id = ask.tool.empty() ? ask.server : ask.server + "__" + ask.tool;
    call.arguments = json::object();
    PendingDecision draft = decision_for(call);
    draft.request = json::object{{"server", ask.server},
                                 {"tool", ask.tool},
                                 {"old_hash", ask.old_hash},
                                 {"new_hash", ask.new_hash},
                                 {"old_definition", ask.old_definition},
                                 {"new_definition", ask.new_definition},
                                 {"diff", definition_diff(ask.old_definition, ask.new_definition)}};
    return typed(decisions_.add(std::move(draft)));
}

std::optional<Error> DefinitionChangeQueue::decider_problem(const Resolver& decider, const PendingDecision& record,
                                                            bool approving) const {
    if (!decider.is_owner()) {
        Error error{errors::kNotAllowedToPin,
                    "user " + decider.user_id + " may not decide definition_change " + record.id +
                        std::string(rules().who_may_decide),
                    {},
                    {"ask an owner to review it with `skillhost " + rules().command() + " show " + record.id + "`"}};
        error.details["definition_change_id"] = record.id;
        error.details["user"] = decider.user_id;
        return error;
    }
    if (!decider.credential.may(auth::Scope::approve)) {
        Error error = auth::missing_scope_error(
            auth::Scope::approve, approving ? "approving a definition change" : "rejecting a definition change",
            decider.credential);
        error.details["definition_change_id"] = record.id;
        return error;
    }
    return std::nullopt;
}

Result<DefinitionChangeRecord> DefinitionChangeQueue::approve(std::string_view id, const Resolver& decider) {
    auto record = decisions_.get(id);
    if (!record) return record.error();
    if (auto problem = decider_problem(decider, *record, true)) return *problem;
    if (auto closed = decisions_.closed(*record, decider.user_id)) return *closed;
    return typed(decisions_.claim(std::move(*record), decider.user_id, nullptr));
}

Result<DefinitionChangeRecord> DefinitionChangeQueue::reject(std::string_view id, const Resolver& decider,
                                                             std::string_view reason) {
    auto record = decisions_.get(id);
    if (!record) return record.error();
    if (auto problem = decider_problem(decider, *record, false)) return *problem;
    if (auto closed = decisions_.closed(*record, decider.user_id)) return *closed;
    return typed(decisions_.reject(std::move(*record), decider.user_id, reason));
}

}  // namespace skillhost::decisions
