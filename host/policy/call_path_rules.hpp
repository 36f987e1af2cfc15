// The rules of one call applied to the paths its skill touches beyond its arguments (the entries
// of a listed or searched directory, a link's target), for the "skillhost.path_check/1" extension.
// The argument itself went through PolicyEngine::decide before the call; this answers for the rest.
#pragma once

#include "manifest/skill_spec.hpp"
#include "policy/policy_engine.hpp"
#include "policy/rule.hpp"
#include "auth/user_context.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

namespace skillhost::policy {

class CallPathRules {
public:
    // The rules that can withhold a path of this call: every deny rule for the skill that names a
    // path input, and every such ask rule the call's own arguments did not match (an ask rule they
    // matched was what the approver saw and approved). nullptr when no rule can withhold anything,
    // so a call without path rules pays nothing per path. Owns copies of what it needs: a plugin
    // may ask from a worker thread after the caller gave up waiting.
    static std::shared_ptr<const CallPathRules> for_call(const PolicyEngine& engine, const auth::UserContext& user,
                                                         const manifest::SkillSpec& skill,
                                                         const boost::json::value& args);

    // Whether `path` (relative to the workspace or absolute) may be touched: the call's arguments
    // with every path input set to `path` match none of the withholding rules.
    bool allows(std::string_view path) const;

private:
    manifest::SkillSpec skill_;  // only id and path_inputs are kept
    boost::json::value args_;
    std::filesystem::path workspace_;
    std::vector<Rule> withholding_;
};

}  // namespace skillhost::policy
