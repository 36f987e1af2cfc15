#include "decisions/approval_queue.hpp"
#include "decisions/error_codes.hpp"

#include "decisions/process_identity.hpp"
#include "decisions/decision_errors.hpp"
#include "decisions/typed_decision.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

namespace skillhost::decisions {

namespace {

ApprovalRecord to_record(const PendingDecision& decision) {
    ApprovalRecord record;
    copy_call_fields(decision, record);
    if (const auto* preview = decision.request.if_contains("preview"); preview && preview->is_string())
        record.preview = std::string(preview->get_string());
    if (const auto* hash = decision.request.if_contains("definition_hash"); hash && hash->is_string())
        record.definition_hash = std::string(hash->get_string());
    record.state = kind_state<ApprovalState>(decision.state);
    record.resolved_by = decision.resolved_by;
    record.resolved_at = decision.resolved_at;
    return record;
}

}  // namespace

ApprovalQueue::ApprovalQueue(std::unique_ptr<db::BackendConnection> connection, ApprovalQueueOptions options)
    : DecisionQueue(std::move(connection), rules_of(DecisionKind::approval),
                    PendingDecisionsOptions{options.ttl, std::move(options.clock), options.audit}, to_record),
      require_approver_(options.require_approver) {}

Result<std::unique_ptr<ApprovalQueue>> ApprovalQueue::open(const std::filesystem::path& database_file,
                                                           ApprovalQueueOptions options) {
    return open(db::StorageLocation::sqlite(database_file), std::move(options));
}

Result<std::unique_ptr<ApprovalQueue>> ApprovalQueue::open(const db::StorageLocation& location,
                                                           ApprovalQueueOptions options) {
    return open_queue<ApprovalQueue>(location, [&](std::unique_ptr<db::BackendConnection> connection) {
        return std::unique_ptr<ApprovalQueue>(new ApprovalQueue(std::move(connection), std::move(options)));
    });
}

std::optional<Error> ApprovalQueue::resolver_problem(const Resolver& resolver, const PendingDecision& record,
                                                     bool approving) const {
    if (auto not_theirs = not_theirs_to_decide(rules_of(DecisionKind::approval), record, resolver)) return not_theirs;
    if (!require_approver_) return std::nullopt;
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

Result<ApprovalRecord> ApprovalQueue::enqueue(const ApprovalRequest& request) {
    PendingDecision draft = decision_for(request);
    draft.request["preview"] = request.preview.empty() ? request.skill_id : request.preview;
    if (!request.definition_hash.empty()) draft.request["definition_hash"] = request.definition_hash;
    return typed(decisions_.add(std::move(draft)));
}

// A read, the rule checks, then the one compare-and-set of PendingDecisions: of several racers
// (threads, processes, instances on one PostgreSQL database) exactly one changes the row, the
// others are told who won.
Result<ApprovalRecord> ApprovalQueue::claim_for_execution(std::string_view id, const Resolver& resolver) {
    auto record = decisions_.get(id);
    if (!record) return record.error();
    if (auto problem = resolver_problem(resolver, *record, true)) return *problem;
    if (auto closed = decisions_.closed(*record, resolver.user_id)) return *closed;
    return typed(decisions_.claim(std::move(*record), resolver.user_id, nullptr));
}

Result<ApprovalRecord> ApprovalQueue::reject(std::string_view id, const Resolver& resolver, std::string_view reason) {
    auto record = decisions_.get(id);
    if (!record) return record.error();
    if (auto problem = resolver_problem(resolver, *record, false)) return *problem;
    if (auto closed = decisions_.closed(*record, resolver.user_id)) return *closed;
    return typed(decisions_.reject(std::move(*record), resolver.user_id, reason));
}

}  // namespace skillhost::decisions
