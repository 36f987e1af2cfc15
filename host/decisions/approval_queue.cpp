#include "decisions/approval_queue.hpp"
#include "decisions/error_codes.hpp"

#include "audit/audit_redaction.hpp"
#include "decisions/process_identity.hpp"
#include "decisions/typed_decision.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

namespace skillhost::decisions {

namespace {

const char* approval_word(DecisionState state) {
    return to_string(approval_state(state));
}

Error not_found(std::string_view id) {
    Error error{errors::kApprovalNotFound,
                "no approval `" + std::string(id) + "`; list them with `skillhost approvals list --all`",
                {},
                {}};
    error.details["approval_id"] = std::string(id);
    return error;
}

Error already_resolved(const PendingDecision& record) {
    const ApprovalState state = approval_state(record.state);
    std::string how = std::string("is already ") + to_string(state);
    if (!record.resolved_by.empty()) how += " (resolved by " + record.resolved_by + ")";
    Error error{errors::kApprovalAlreadyResolved,
                "approval " + record.id + " " + how +
                    "; only pending approvals can be approved or rejected — see `skillhost approvals show " +
                    record.id + "`",
                {},
                {}};
    error.details["approval_id"] = record.id;
    error.details["state"] = to_string(state);
    error.details["resolved_by"] = record.resolved_by;
    return error;
}

Error expired(const PendingDecision& record) {
    Error error{errors::kApprovalExpired,
                "approval " + record.id + " expired at " + format_utc_timestamp(record.expires_at) +
                    " and will not run; repeat the original call to request a new approval",
                {},
                {}};
    error.details["approval_id"] = record.id;
    error.details["expires_at"] = format_utc_timestamp(record.expires_at);
    error.details["state"] = "expired";
    return error;
}

Error not_claimed(const PendingDecision& record) {
    const char* state = approval_word(record.state);
    Error error{errors::kApprovalNotClaimed,
                "approval " + record.id + " is " + state +
                    ", not approved, so its outcome cannot be recorded; see `skillhost approvals show " + record.id +
                    "`",
                {},
                {}};
    error.details["approval_id"] = record.id;
    error.details["state"] = state;
    return error;
}

// The audit keeps the call's arguments only as their digest.
void audit_fields(const PendingDecision& record, boost::json::object& fields) {
    fields["args_sha256"] = audit::argument_digest(record.arguments);
}

constexpr DecisionKindRules approval_rules{
    .kind = DecisionKind::approval,
    .id_prefix = "apr-",
    .noun = "approval",
    .requested = "requested",
    .unresolved = "resolved",
    .interrupted_reason = interrupted_reason,
    .state_word = approval_word,
    .not_found = not_found,
    .already_decided = already_resolved,
    .expired = expired,
    .not_claimed = not_claimed,
    .audit_fields = audit_fields,
};

ApprovalRecord to_record(const PendingDecision& decision) {
    ApprovalRecord record;
    copy_call_fields(decision, record);
    if (const auto* preview = decision.request.if_contains("preview"); preview && preview->is_string())
        record.preview = std::string(preview->get_string());
    record.state = approval_state(decision.state);
    record.resolved_by = decision.resolved_by;
    record.resolved_at = decision.resolved_at;
    return record;
}

Result<ApprovalRecord> to_record(Result<PendingDecision> decision) {
    if (!decision) return decision.error();
    return to_record(*decision);
}

bool may_resolve(const Resolver& resolver, const PendingDecision& record) {
    return resolver.role == auth::Role::owner || resolver.user_id == record.user_id;
}

Error not_allowed(const Resolver& resolver, const PendingDecision& record) {
    Error error{errors::kNotAllowedToResolve,
                "user " + resolver.user_id + " may not resolve approval " + record.id + ", which " + record.user_id +
                    " requested; only the requesting user or an owner may approve or reject it",
                {},
                {}};
    error.details["approval_id"] = record.id;
    error.details["user"] = resolver.user_id;
    error.details["requested_for"] = record.user_id;
    return error;
}

std::optional<Error> approver_problem(const Resolver& resolver, const PendingDecision& record, bool approving) {
    if (!resolver.credential.may(auth::Scope::approve)) {
        Error e = auth::missing_scope_error(auth::Scope::approve, approving ? "approving a call" : "rejecting a call",
                                            resolver.credential);
        e.details["approval_id"] = record.id;
        return e;
    }
    // An admin token is the owner's own full authority (the console's sign-in); any other token
    // that asked for a call is the agent the approval exists to check.
    if (approving && !resolver.answers_prompt && resolver.credential.is_token() &&
        !resolver.credential.may(auth::Scope::admin) && resolver.credential.token_id == record.requested_token) {
        Error e{errors::kSelfApproval,
                "approval " + record.id + " was requested with token " + record.requested_token +
                    ", and a token without the admin scope cannot approve the calls it asked for",
                {},
                {"approve it with another token that has the approve scope, or at the terminal with `skillhost "
                 "approvals approve " +
                 record.id + "`"}};
        e.details["approval_id"] = record.id;
        e.details["token_id"] = record.requested_token;
        return e;
    }
    return std::nullopt;
}

}  // namespace

ApprovalQueue::ApprovalQueue(std::unique_ptr<db::BackendConnection> connection, ApprovalQueueOptions options)
    : decisions_(std::move(connection), approval_rules,
                 PendingDecisionsOptions{options.ttl, std::move(options.clock), options.audit}),
      require_approver_(options.require_approver) {}

Result<std::unique_ptr<ApprovalQueue>> ApprovalQueue::open(const std::filesystem::path& database_file,
                                                           ApprovalQueueOptions options) {
    return open(db::StorageLocation::sqlite(database_file), std::move(options));
}

Result<std::unique_ptr<ApprovalQueue>> ApprovalQueue::open(const db::StorageLocation& location,
                                                           ApprovalQueueOptions options) {
    auto connection = db::BackendConnection::open(location);
    if (!connection) return connection.error();
    std::unique_ptr<ApprovalQueue> queue(new ApprovalQueue(std::move(*connection), std::move(options)));
    auto recovered = queue->recover_interrupted();
    if (!recovered) return recovered.error();
    for (const auto& id : *recovered) {
        spdlog::warn("approval {} was being executed when the host stopped; marked failed (not re-run)", id);
    }
    return queue;
}

Result<ApprovalRecord> ApprovalQueue::enqueue(const ApprovalRequest& request) {
    PendingDecision draft = decision_for(request);
    draft.request["preview"] = request.preview.empty() ? request.skill_id : request.preview;
    return to_record(decisions_.add(std::move(draft)));
}

Result<ApprovalRecord> ApprovalQueue::get(std::string_view id) const {
    return to_record(decisions_.get(id));
}

Result<ApprovalRecord> ApprovalQueue::get_visible(std::string_view id, const Resolver& viewer) {
    return to_record(decisions_.get_visible(id, viewer.user_id, viewer.role == auth::Role::owner));
}

Result<std::vector<ApprovalRecord>> ApprovalQueue::list_visible(const ApprovalFilter& filter, const Resolver& viewer) {
    return records_of<ApprovalRecord>(
        decisions_.list_visible(decision_filter(filter), viewer.user_id, viewer.role == auth::Role::owner),
        [](const PendingDecision& decision) { return to_record(decision); });
}

Result<std::vector<ApprovalRecord>> ApprovalQueue::list(const ApprovalFilter& filter) const {
    return records_of<ApprovalRecord>(decisions_.list(decision_filter(filter)),
                                      [](const PendingDecision& decision) { return to_record(decision); });
}

// A read, the rule checks, then the one compare-and-set of PendingDecisions: of several racers
// (threads, processes, instances on one PostgreSQL database) exactly one changes the row, the
// others are told who won.
Result<ApprovalRecord> ApprovalQueue::claim_for_execution(std::string_view id, const Resolver& resolver) {
    auto record = decisions_.get(id);
    if (!record) return record.error();
    if (!may_resolve(resolver, *record)) return not_allowed(resolver, *record);
    if (require_approver_) {
        if (auto problem = approver_problem(resolver, *record, true)) return *problem;
    }
    if (auto closed = decisions_.closed(*record, resolver.user_id)) return *closed;
    return to_record(decisions_.claim(std::move(*record), resolver.user_id, nullptr));
}

Result<ApprovalRecord> ApprovalQueue::complete(std::string_view id, bool ok, const boost::json::value& result,
                                               std::string_view reason) {
    return to_record(decisions_.complete(id, ok, result, reason));
}

Result<ApprovalRecord> ApprovalQueue::reject(std::string_view id, const Resolver& resolver, std::string_view reason) {
    auto record = decisions_.get(id);
    if (!record) return record.error();
    if (!may_resolve(resolver, *record)) return not_allowed(resolver, *record);
    if (require_approver_) {
        if (auto problem = approver_problem(resolver, *record, false)) return *problem;
    }
    if (auto closed = decisions_.closed(*record, resolver.user_id)) return *closed;
    return to_record(decisions_.reject(std::move(*record), resolver.user_id, reason));
}

Result<std::vector<std::string>> ApprovalQueue::expire_due(TimePoint at) {
    return decisions_.expire_due(at);
}

Result<std::vector<std::string>> ApprovalQueue::recover_interrupted() {
    return decisions_.recover_interrupted(process_is_alive);
}

Result<std::vector<std::string>> ApprovalQueue::recover_interrupted(
    const std::function<bool(const ProcessIdentity& claimer)>& claimer_alive) {
    return decisions_.recover_interrupted(claimer_alive);
}

}  // namespace skillhost::decisions
