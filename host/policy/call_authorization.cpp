#include "policy/call_authorization.hpp"

#include "decisions/approval_preview.hpp"

namespace skillhost::policy {

Status record_decision(audit::AuditLog& audit, const Decision& decision, const boost::json::value& args) {
    const std::string rule_location = decision.rule ? decision.rule->location() : std::string();
    audit::DecisionAudit record;
    record.user_id = decision.user_id;
    record.skill_id = decision.skill_id;
    record.mode = auth::to_string(decision.mode);
    record.outcome = to_string(decision.outcome);
    record.step = to_string(decision.step);
    record.code = decision.code.name;
    record.reason = decision.reason;
    if (decision.rule) {
        record.rule = decision.rule->text;
        record.rule_location = rule_location;
    }
    return audit.record_decision(record, args);
}

Result<CallAuthorization> authorize_call(const PolicyEngine& engine, decisions::ApprovalQueue& queue,
                                         audit::AuditLog* audit, const auth::UserContext& user,
                                         const manifest::SkillSpec& skill, const boost::json::value& args,
                                         const auth::Requester& requested_by) {
    if (!user.credential.may(auth::Scope::call)) {
        Error e = auth::missing_scope_error(auth::Scope::call, "calling skill " + skill.id, user.credential);
        e.details["skill_id"] = skill.id;
        return e;
    }
    CallAuthorization authorization{engine.decide(user, skill, args), std::nullopt};
    if (audit != nullptr) {
        // An unaudited call must not run: the audit trail is part of the policy.
        if (auto st = record_decision(*audit, authorization.decision, args); !st) return st.error();
    }
    if (authorization.decision.needs_approval()) {
        decisions::ApprovalRequest request{{user.user_id, skill.id, args, requested_by, user.credential.token_id},
                                           decisions::make_approval_preview(skill, args),
                                           skill.foreign ? skill.foreign->definition_hash : std::string()};
        auto record = queue.enqueue(request);
        if (!record) return record.error();
        authorization.approval = std::move(*record);
    }
    return authorization;
}

}  // namespace skillhost::policy
