// Decides whether one call may run, must wait for approval, or is refused — in a fixed order:
// (1) visibility in the user's cognitive mode, (2) deny/ask/allow rules, (3) trust, (4) approval.
// The engine is immutable after construction and safe to share between threads.
#pragma once

#include "manifest/skill_spec.hpp"
#include "policy/decision.hpp"
#include "policy/policy_config.hpp"
#include "auth/user_context.hpp"

#include <boost/json/value.hpp>

namespace skillhost::policy {

class PolicyEngine {
public:
    explicit PolicyEngine(PolicyConfig config);

    // Never throws for anything a user can get wrong. Arguments should already be validated (and
    // defaults applied) so rules see what the skill will see.
    Decision decide(const auth::UserContext& user, const manifest::SkillSpec& skill,
                    const boost::json::value& args) const;

    // Whether the skill appears in this user's catalog (emulation mode shows only read-only skills).
    bool is_visible(const auth::UserContext& user, const manifest::SkillSpec& skill) const;

    // decide() plus the story of every step, including each rule that was considered.
    Explanation explain(const auth::UserContext& user, const manifest::SkillSpec& skill,
                        const boost::json::value& args) const;

    const PolicyConfig& config() const { return config_; }

private:
    Decision evaluate(const auth::UserContext& user, const manifest::SkillSpec& skill, const boost::json::value& args,
                      std::vector<ExplainedStep>* story) const;

    PolicyConfig config_;
};

}  // namespace skillhost::policy
