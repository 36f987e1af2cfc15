// etc/policy.yaml: global and per-user rules, the approval TTL and the audit log's settings.
#pragma once

#include "base/error.hpp"
#include "audit/audit_options.hpp"
#include "policy/rule.hpp"
#include "auth/users.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::policy {

struct RuleSet {
    std::vector<Rule> deny;
    std::vector<Rule> ask;
    std::vector<Rule> allow;

    const std::vector<Rule>& of(RuleKind kind) const;
    std::size_t size() const { return deny.size() + ask.size() + allow.size(); }
};

struct UserRules {
    std::string user_id;
    int line = 0;
    int column = 0;
    RuleSet rules;
};

struct PolicyConfig {
    std::filesystem::path file;  // empty when running without a policy.yaml
    RuleSet global;
    std::vector<UserRules> users;
    std::chrono::milliseconds approval_ttl = std::chrono::hours(24);
    // approvals.require_approver: resolving an approval needs a credential with the approve scope,
    // and the token that requested a call cannot approve it.
    bool require_approver = true;
    // approvals.stdio_elicitation_approves: over `skillhost mcp` (stdio) the client's answer to an
    // approval elicitation approves, since the client runs for the user at the terminal.
    bool stdio_elicitation_approves = true;
    audit::AuditOptions audit;

    const RuleSet* rules_for(std::string_view user_id) const;
};

// The built-in default policy: the deny rules etc/policy.yaml ships (credentials under `.ssh`
// and `*.pem` keys are never touched by fs skills) with default settings.
std::string_view default_policy_yaml();
Result<PolicyConfig> default_policy_config();

// Reads policy.yaml. A missing file means the built-in default policy; anything wrong is
// POLICY_INVALID with file:line:column per problem (rule syntax errors point into the rule).
Result<PolicyConfig> load_policy_config(const std::filesystem::path& file);
Result<PolicyConfig> parse_policy_config(std::string_view yaml_text, const std::filesystem::path& file);

// Rules for a user users.yaml does not know would silently never apply: POLICY_INVALID naming the
// user and where the rules are.
Status check_policy_users(const PolicyConfig& config, const auth::UserDirectory& users);

}  // namespace skillhost::policy
