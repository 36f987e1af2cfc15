// The durable approval queue: the approvals among the pending decisions (decisions/pending_decisions),
// in skillhost.db or in PostgreSQL (shared by every instance), with who may approve. Every
// transition is a compare-and-set on the row's state committed on its own, so two approvers
// (threads, processes or instances) racing on one approval get exactly one claim between them,
// and nothing runs after it expired or was rejected.
//
// The executor's flow for `approvals approve ID`:
//   auto claim = queue.claim_for_execution(id, resolver);      // pending -> approved, exactly once
//   if (!claim) report claim.error();                           // expired, already resolved, ...
//   re-validate claim->arguments, re-check policy for claim->user_id;
//   if refused: queue.complete(id, false, error_json, reason);  // approved -> failed
//   else run the skill once, then queue.complete(id, ok, result_json);  // -> executed | failed
// A host that dies between claim and complete leaves the row `approved` with its process identity;
// the next open() (or recover_interrupted()) marks it failed as interrupted. It is never re-run:
// the skill may or may not have had its effect, so the user must re-request it knowingly.
#pragma once

#include "base/error.hpp"
#include "decisions/approval_record.hpp"
#include "decisions/decision_queue.hpp"
#include "decisions/pending_decisions.hpp"
#include "decisions/resolver.hpp"
#include "auth/credential.hpp"
#include "decisions/process_identity.hpp"
#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"
#include "auth/users.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::audit {
class AuditLog;
}  // namespace skillhost::audit

namespace skillhost::decisions {

struct ApprovalRequest : DecisionAsk {
    std::string preview;  // make_approval_preview()
    // A foreign MCP tool's definition hash as the catalog showed it (manifest::ForeignTool): the call
    // is approved against that definition and refused if it runs against another. Empty otherwise.
    std::string definition_hash{};
};

using ApprovalFilter = StateFilter<ApprovalState>;

struct ApprovalQueueOptions {
    std::chrono::milliseconds ttl = std::chrono::hours(24);
    // Tests inject a clock; empty means the system clock.
    std::function<TimePoint()> clock;
    // When set, every transition is also appended to the audit log. Not owned.
    audit::AuditLog* audit = nullptr;
    // policy.yaml approvals.require_approver: resolving needs the approve scope, and the token
    // that requested a call cannot approve it.
    bool require_approver = true;
};

class ApprovalQueue : public DecisionQueue<ApprovalRecord, ApprovalState> {
public:
    // Opens (creating) the approvals table and marks approvals left `approved` by a dead process as
    // failed (interrupted). DATABASE_ERROR when the file cannot be used.
    static Result<std::unique_ptr<ApprovalQueue>> open(const std::filesystem::path& database_file,
                                                       ApprovalQueueOptions options = {});
    // The queue of whichever backend `location` names.
    static Result<std::unique_ptr<ApprovalQueue>> open(const db::StorageLocation& location,
                                                       ApprovalQueueOptions options = {});

    // Stores a pending approval expiring after the TTL.
    Result<ApprovalRecord> enqueue(const ApprovalRequest& request);

    // pending -> approved for `resolver`, who then must execute it and call complete() (approved ->
    // executed | failed; APPROVAL_NOT_CLAIMED when it is no longer approved).
    // Errors: APPROVAL_NOT_FOUND; NOT_ALLOWED_TO_RESOLVE (neither the requester nor an owner);
    // MISSING_SCOPE (require_approver and no approve scope); SELF_APPROVAL (require_approver and
    // the resolver's token, without the admin scope, is the one that requested the call);
    // APPROVAL_EXPIRED (past expires_at: the row is marked expired); APPROVAL_ALREADY_RESOLVED
    // (details.state says approved/executed/failed/rejected/expired and who resolved it); of two
    // racing approvers the loser gets APPROVAL_ALREADY_RESOLVED with state approved.
    Result<ApprovalRecord> claim_for_execution(std::string_view id, const Resolver& resolver);

    // pending -> rejected. Same permission, expiry and state errors as claim_for_execution.
    Result<ApprovalRecord> reject(std::string_view id, const Resolver& resolver, std::string_view reason);

private:
    ApprovalQueue(std::unique_ptr<db::BackendConnection> connection, ApprovalQueueOptions options);
    // Who may decide `record`: NOT_ALLOWED_TO_RESOLVE, MISSING_SCOPE, SELF_APPROVAL, or nullopt.
    std::optional<Error> resolver_problem(const Resolver& resolver, const PendingDecision& record,
                                          bool approving) const;

    bool require_approver_;
};

}  // namespace skillhost::decisions
