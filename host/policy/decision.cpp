#include "policy/decision.hpp"
#include "policy/error_codes.hpp"

#include <boost/json/array.hpp>

namespace skillhost::policy {

const char* to_string(Outcome outcome) {
    switch (outcome) {
        case Outcome::allow: return "allow";
        case Outcome::ask: return "ask";
        case Outcome::deny: return "deny";
    }
    return "deny";
}

const char* to_string(DecisionStep step) {
    switch (step) {
        case DecisionStep::visibility: return "visibility";
        case DecisionStep::rule: return "rule";
        case DecisionStep::trust: return "trust";
        case DecisionStep::approval: return "approval";
    }
    return "visibility";
}

const char* to_string(StepVerdict verdict) {
    switch (verdict) {
        case StepVerdict::passed: return "passed";
        case StepVerdict::decided: return "decided";
        case StepVerdict::not_reached: return "not reached";
    }
    return "not reached";
}

std::string MatchedRule::location() const {
    return file + ":" + std::to_string(line);
}

boost::json::object MatchedRule::to_json() const {
    boost::json::object out;
    out["kind"] = to_string(kind);
    out["text"] = text;
    out["scope"] = scope;
    out["file"] = file;
    out["line"] = line;
    out["column"] = column;
    return out;
}

Error Decision::to_error(std::string_view approval_id) const {
    Error error{code.name.empty() ? errors::kPolicyDenied : code, reason};
    if (code == errors::kModeForbids) {
        error.message += "; switch the user to dual or agent mode with `skillhost mode set agent --user " + user_id +
                         "`, or use a read-only skill";
        error.suggestions.push_back("use a read-only skill that gives the same information");
        error.suggestions.push_back("switch out of emulation mode: skillhost mode set agent --user " + user_id);
    } else if (code == errors::kDeniedByRule) {
        error.message += "; this call is not permitted — if it should be, an owner must change that rule";
        error.suggestions.push_back("do not retry this call with the same arguments; choose another action");
    } else if (code == errors::kTrustTooLow) {
        error.message += "; an owner can raise the user's trust in users.yaml, or use a skill that needs less trust";
        error.suggestions.push_back("use a skill whose min_trust is at most " +
                                    std::string(manifest::to_string(current_trust)));
    } else if (code == errors::kApprovalRequired) {
        if (approval_id.empty()) {
            error.message += "; the call needs approval before it runs";
        } else {
            error.message += "; the call was queued as " + std::string(approval_id) +
                             " — approve it with `skillhost approvals approve " + std::string(approval_id) +
                             "` or reject it with `skillhost approvals reject " + std::string(approval_id) +
                             " --reason TEXT`";
            error.details["approval_id"] = std::string(approval_id);
        }
        error.suggestions.push_back("wait for the approval to be resolved before repeating the call");
    }
    error.details["skill"] = skill_id;
    error.details["user"] = user_id;
    error.details["mode"] = to_string(mode);
    error.details["step"] = to_string(step);
    error.details["outcome"] = to_string(outcome);
    if (code == errors::kTrustTooLow) {
        error.details["required_trust"] = manifest::to_string(required_trust);
        error.details["current_trust"] = manifest::to_string(current_trust);
    }
    if (rule) error.details["rule"] = rule->to_json();
    return error;
}

boost::json::object Decision::to_json() const {
    boost::json::object out;
    out["outcome"] = to_string(outcome);
    out["step"] = to_string(step);
    out["code"] = code.name;
    out["reason"] = reason;
    out["skill"] = skill_id;
    out["user"] = user_id;
    out["mode"] = to_string(mode);
    out["current_trust"] = manifest::to_string(current_trust);
    out["required_trust"] = manifest::to_string(required_trust);
    if (rule)
        out["rule"] = rule->to_json();
    else
        out["rule"] = nullptr;
    return out;
}

std::string Explanation::to_text() const {
    std::string out = "skill " + decision.skill_id + " for user " + decision.user_id + " (trust " +
                      manifest::to_string(decision.current_trust) + ", mode " + to_string(decision.mode) + ")\n";
    int number = 1;
    for (const auto& step : steps) {
        out += std::to_string(number++) + ". " + to_string(step.step) + ": " + to_string(step.verdict);
        if (!step.summary.empty()) out += " — " + step.summary;
        out += '\n';
        for (const auto& detail : step.details) out += "     " + detail + '\n';
    }
    out += "decision: " + std::string(to_string(decision.outcome));
    if (!decision.code.name.empty()) out += " (" + std::string(decision.code.name) + ")";
    out += " at step " + std::string(to_string(decision.step)) + ": " + decision.reason + '\n';
    return out;
}

boost::json::object Explanation::to_json() const {
    boost::json::object out;
    out["decision"] = decision.to_json();
    boost::json::array list;
    for (const auto& step : steps) {
        boost::json::object item;
        item["step"] = to_string(step.step);
        item["verdict"] = to_string(step.verdict);
        item["summary"] = step.summary;
        boost::json::array details;
        for (const auto& d : step.details) details.emplace_back(d);
        item["details"] = std::move(details);
        list.push_back(std::move(item));
    }
    out["steps"] = std::move(list);
    return out;
}

}  // namespace skillhost::policy
