// What policy decided for one call, and the step-by-step story behind it (`policy explain`).
#pragma once

#include "base/error.hpp"
#include "manifest/skill_spec.hpp"
#include "policy/rule.hpp"
#include "auth/users.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::policy {

enum class Outcome { allow, ask, deny };
// The order policy runs in; `step` in a Decision is the one that settled the outcome.
enum class DecisionStep { visibility, rule, trust, approval };

const char* to_string(Outcome);
const char* to_string(DecisionStep);

struct MatchedRule {
    RuleKind kind = RuleKind::deny;
    std::string text;
    std::string scope;  // "global" or the user id
    std::string file;
    int line = 0;
    int column = 0;

    std::string location() const;  // "file:line"
    boost::json::object to_json() const;
};

struct Decision {
    Outcome outcome = Outcome::allow;
    DecisionStep step = DecisionStep::approval;
    // MODE_FORBIDS, DENIED_BY_RULE, TRUST_TOO_LOW, APPROVAL_REQUIRED; no name when allowed.
    ErrorCode code{};
    std::string reason;               // one human sentence
    std::optional<MatchedRule> rule;  // the rule that decided or contributed (allow/ask/deny)
    std::string skill_id;
    std::string user_id;
    auth::CognitiveMode mode = auth::CognitiveMode::agent;
    manifest::TrustLevel current_trust = manifest::TrustLevel::observe;
    manifest::TrustLevel required_trust = manifest::TrustLevel::observe;

    bool allowed() const { return outcome == Outcome::allow; }
    bool needs_approval() const { return outcome == Outcome::ask; }
    bool denied() const { return outcome == Outcome::deny; }

    // The Error a caller returns for ask/deny: the code, the reason plus what to do, details
    // (skill, user, step, rule with file:line, trust levels). Pass the approval id once the call is
    // queued so the message says how to approve it.
    Error to_error(std::string_view approval_id = {}) const;
    boost::json::object to_json() const;
};

enum class StepVerdict { passed, decided, not_reached };
const char* to_string(StepVerdict);

struct ExplainedStep {
    DecisionStep step = DecisionStep::visibility;
    StepVerdict verdict = StepVerdict::not_reached;
    std::string summary;               // one sentence
    std::vector<std::string> details;  // e.g. each rule considered and why it did or did not match
};

struct Explanation {
    Decision decision;
    std::vector<ExplainedStep> steps;  // always all four, in order

    // Human text for `skillhost policy explain`.
    std::string to_text() const;
    boost::json::object to_json() const;
};

}  // namespace skillhost::policy
