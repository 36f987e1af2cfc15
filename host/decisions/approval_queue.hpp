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
#include "decisions/pending_decisions.hpp"
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

struct ApprovalRequest {
    std::string user_id;
    std::string skill_id;
    boost::json::value arguments;
    auth::Requester requested_by;
    std::string preview;            // make_approval_preview()
    std::string requested_token{};  // id of the token the call came with; empty: the terminal user
};

// Who is approving or rejecting: the requesting user or any owner may; with require_approver, only
// with a credential that has the approve scope, and never with the (non-admin) token that requested
// the call.
struct Resolver {
    std::string user_id;
    auth::Role role = auth::Role::standard;
    auth::Credential credential{};  // default: the terminal user (all scopes)
    // The answer comes from the person a host prompt reached (MCP elicitation, shown by the client
    // to its user): the session's token asked the host, not the client, so it is not self-approval.
    bool answers_prompt = false;
};

struct ApprovalFilter {
    std::optional<std::string> user_id;
    std::vector<ApprovalState> states;  // empty: every state
    std::size_t limit = 0;              // 0: no limit; newest first either way
};

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

inline constexpr std::string_view interrupted_reason =
    "interrupted: the host stopped while executing; re-request the action";

class ApprovalQueue {
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

    // APPROVAL_NOT_FOUND when there is no such id.
    Result<ApprovalRecord> get(std::string_view id) const;
    Result<std::vector<ApprovalRecord>> list(const ApprovalFilter& filter = {}) const;
    // As `viewer` may see them (PendingDecisions::get_visible / list_visible): expired ones marked
    // first; their own, or everyone's for an owner; another user's id is APPROVAL_NOT_FOUND.
    Result<ApprovalRecord> get_visible(std::string_view id, const Resolver& viewer);
    Result<std::vector<ApprovalRecord>> list_visible(const ApprovalFilter& filter, const Resolver& viewer);

    // pending -> approved for `resolver`, who then must execute it and call complete().
    // Errors: APPROVAL_NOT_FOUND; NOT_ALLOWED_TO_RESOLVE (neither the requester nor an owner);
    // MISSING_SCOPE (require_approver and no approve scope); SELF_APPROVAL (require_approver and
    // the resolver's token, without the admin scope, is the one that requested the call);
    // APPROVAL_EXPIRED (past expires_at: the row is marked expired); APPROVAL_ALREADY_RESOLVED
    // (details.state says approved/executed/failed/rejected/expired and who resolved it); of two
    // racing approvers the loser gets APPROVAL_ALREADY_RESOLVED with state approved.
    Result<ApprovalRecord> claim_for_execution(std::string_view id, const Resolver& resolver);

    // approved -> executed (ok) or failed (!ok), storing the result and reason.
    // APPROVAL_NOT_CLAIMED when the approval is not in state approved (e.g. it was already marked
    // interrupted).
    Result<ApprovalRecord> complete(std::string_view id, bool ok, const boost::json::value& result,
                                    std::string_view reason = {});

    // Outcomes complete() could not store (the database was full, read-only or unreachable) are
    // kept in memory (at most max_unrecorded_outcomes) and stored by the next get(), list(),
    // claim or this call, once storage takes writes again; an outcome is never lost while the
    // host runs, and a host that stops first leaves the row to recover_interrupted(). Returns how
    // many are still waiting.
    std::size_t record_unrecorded_outcomes() const { return decisions_.record_unrecorded_outcomes(); }
    static constexpr std::size_t max_unrecorded_outcomes = PendingDecisions::max_unrecorded_outcomes;

    // pending -> rejected. Same permission, expiry and state errors as claim_for_execution.
    Result<ApprovalRecord> reject(std::string_view id, const Resolver& resolver, std::string_view reason);

    // pending approvals whose expires_at <= now -> expired. Returns their ids.
    Result<std::vector<std::string>> expire_due(TimePoint now);
    Result<std::vector<std::string>> expire_due() { return expire_due(decisions_.now()); }

    // approved approvals whose claiming process is gone -> failed with interrupted_reason.
    // Returns their ids. open() runs this; a long-running daemon may call it too.
    Result<std::vector<std::string>> recover_interrupted();
    // The same, judging each claimer with `claimer_alive` (false only when it is surely gone):
    // several instances on one database tell a dead instance on another machine by its lapsed
    // announcement, which process identity alone cannot.
    Result<std::vector<std::string>> recover_interrupted(
        const std::function<bool(const ProcessIdentity& claimer)>& claimer_alive);

    std::chrono::milliseconds ttl() const { return decisions_.ttl(); }

private:
    ApprovalQueue(std::unique_ptr<db::BackendConnection> connection, ApprovalQueueOptions options);

    PendingDecisions decisions_;
    bool require_approver_;
};

}  // namespace skillhost::decisions
