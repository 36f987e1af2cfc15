// The policy gate every skill call passes through, in one place so no path (CLI, API, MCP, the
// operator's tool calls) can forget a part: decide, audit the decision, and queue the call when it
// needs approval.
#pragma once

#include "base/error.hpp"
#include "manifest/skill_spec.hpp"
#include "decisions/approval_queue.hpp"
#include "audit/audit_log.hpp"
#include "policy/policy_engine.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string_view>

namespace skillhost::policy {

struct CallAuthorization {
    Decision decision;
    // Set when the decision is `ask`: the pending approval the caller reports.
    std::optional<decisions::ApprovalRecord> approval;

    bool may_run() const { return decision.allowed(); }
    // For a refused or queued call: the Error to return (APPROVAL_REQUIRED names the approval id).
    Error error() const { return decision.to_error(approval ? std::string_view(approval->id) : std::string_view()); }
};

// Appends the decision to the audit trail, with the call's arguments (redacted). An unaudited call
// must not run: a caller that gets an error here refuses the call.
Status record_decision(audit::AuditLog& audit, const Decision& decision, const boost::json::value& args);

// `args` must already be validated with defaults applied. `requested_by` says who asked (an
// operator run's approvals resume that run). `audit` may be null. Errors only when the queue or the audit log cannot be written;
// a call that could not be queued must not run.
Result<CallAuthorization> authorize_call(const PolicyEngine& engine, decisions::ApprovalQueue& queue,
                                         audit::AuditLog* audit, const auth::UserContext& user,
                                         const manifest::SkillSpec& skill, const boost::json::value& args,
                                         const auth::Requester& requested_by = {});

}  // namespace skillhost::policy
