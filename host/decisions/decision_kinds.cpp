#include "decisions/decision_kinds.hpp"

#include "audit/audit_redaction.hpp"

#include <boost/json/array.hpp>

namespace skillhost::decisions {

namespace json = boost::json;

namespace {

// An approval's audit keeps the call's arguments only as their digest.
void approval_audit_fields(const PendingDecision& record, json::object& fields) {
    fields["args_sha256"] = audit::argument_digest(record.arguments);
}

// A question's audit keeps its message and which fields were answered, never their values: a form
// may ask for anything.
void question_audit_fields(const PendingDecision& record, json::object& fields) {
    const json::value* message = record.request.if_contains("message");
    fields["message"] = message && message->is_string() ? message->get_string() : json::string();
    if (!record.answer.is_object()) return;
    const json::object& answer = record.answer.get_object();
    if (const json::value* action = answer.if_contains("action")) fields["action"] = *action;
    json::array names;
    if (const json::value* content = answer.if_contains("content"); content && content->is_object())
        for (const auto& member : content->get_object()) names.emplace_back(member.key());
    fields["fields"] = std::move(names);
}

// A definition change's audit keeps which definition it was and what it becomes (the hashes); the
// definitions themselves are in the decision.
void definition_change_audit_fields(const PendingDecision& record, json::object& fields) {
    for (const char* key : {"server", "tool", "old_hash", "new_hash"})
        if (const json::value* value = record.request.if_contains(key)) fields[key] = *value;
}

// One row per DecisionKind, in its order.
constexpr DecisionKindRules kinds[] = {
    {.kind = DecisionKind::approval,
     .id_prefix = "apr-",
     .noun = "approval",
     .requested = "requested",
     .decide = "resolve",
     .unresolved = "resolved",
     .who_may_decide = "; only the requesting user or an owner may approve or reject it",
     .interrupted_reason = interrupted_reason,
     .only_pending = "; only pending approvals can be approved or rejected",
     .after_expiry = " and will not run; repeat the original call to request a new approval",
     .not_claimed_because = "not approved, so its outcome cannot be recorded",
     .codes = kApprovalErrorCodes,
     .state_word = kind_word<ApprovalState>,
     .audit_fields = approval_audit_fields},
    {.kind = DecisionKind::question,
     .id_prefix = "eli-",
     .noun = "elicitation",
     .requested = "asked",
     .decide = "answer",
     .unresolved = "answered",
     .who_may_decide = "; only the asked user or an owner may answer it",
     .interrupted_reason = interrupted_elicitation,
     .only_pending = "; only a pending question can be answered",
     .after_expiry = " and can no longer be answered; repeat the original call to be asked again",
     .not_claimed_because = "not answered, so what followed cannot be recorded",
     .codes = kQuestionErrorCodes,
     .state_word = kind_word<ElicitationState>,
     .audit_fields = question_audit_fields},
    {.kind = DecisionKind::definition_change,
     .id_prefix = "def-",
     .noun = "definition_change",
     .requested = "requested",
     .decide = "decide",
     .unresolved = "decided",
     .who_may_decide = "; only an owner may approve or reject a definition change",
     .interrupted_reason = interrupted_definition_change,
     .only_pending = "; only a pending definition change can be approved or rejected",
     .after_expiry = "; the tool stays refused, and the next listing of the server asks again",
     .not_claimed_because = "not approved, so the definition cannot be pinned",
     .codes = kDefinitionChangeErrorCodes,
     .state_word = kind_word<DefinitionChangeState>,
     .audit_fields = definition_change_audit_fields},
};

static_assert(kinds[static_cast<std::size_t>(DecisionKind::approval)].kind == DecisionKind::approval);
static_assert(kinds[static_cast<std::size_t>(DecisionKind::question)].kind == DecisionKind::question);
static_assert(kinds[static_cast<std::size_t>(DecisionKind::definition_change)].kind == DecisionKind::definition_change);

}  // namespace

const DecisionKindRules& rules_of(DecisionKind kind) {
    return kinds[static_cast<std::size_t>(kind)];
}

}  // namespace skillhost::decisions
