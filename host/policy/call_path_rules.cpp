#include "policy/call_path_rules.hpp"

#include <algorithm>

namespace skillhost::policy {

namespace {

bool names_path_input(const Rule& rule, const manifest::SkillSpec& skill) {
    return std::any_of(rule.arguments.begin(), rule.arguments.end(), [&](const ArgumentPattern& a) {
        return std::find(skill.path_inputs.begin(), skill.path_inputs.end(), a.name) != skill.path_inputs.end() ||
               std::find(skill.path_inputs.begin(), skill.path_inputs.end(), a.name + "[]") != skill.path_inputs.end();
    });
}

}  // namespace

std::shared_ptr<const CallPathRules> CallPathRules::for_call(const PolicyEngine& engine, const auth::UserContext& user,
                                                             const manifest::SkillSpec& skill,
                                                             const boost::json::value& args) {
    if (skill.path_inputs.empty()) return nullptr;
    const PolicyConfig& config = engine.config();
    const CallArguments call_args(args, skill, user.workspace);
    auto rules = std::make_shared<CallPathRules>();
    for (RuleKind kind : {RuleKind::deny, RuleKind::ask}) {
        for (const RuleSet* set : {config.rules_for(user.user_id), &config.global}) {
            if (set == nullptr) continue;
            for (const Rule& rule : set->of(kind)) {
                if (!rule_matches_skill(rule, skill.id) || !names_path_input(rule, skill)) continue;
                if (kind == RuleKind::ask && rule_matches(rule, skill.id, call_args)) continue;
                rules->withholding_.push_back(rule);
            }
        }
    }
    if (rules->withholding_.empty()) return nullptr;
    rules->skill_.id = skill.id;
    rules->skill_.path_inputs = skill.path_inputs;
    rules->args_ = args.is_object() ? args : boost::json::object{};
    rules->workspace_ = user.workspace;
    return rules;
}

bool CallPathRules::allows(std::string_view path) const {
    if (path.empty() || path.find('\0') != std::string_view::npos) return false;
    boost::json::value candidate = args_;
    auto& object = candidate.as_object();
    for (const auto& input : skill_.path_inputs) {
        if (input.ends_with("[]")) {
            object[input.substr(0, input.size() - 2)] = boost::json::array{boost::json::string(path)};
        } else {
            object[input] = path;
        }
    }
    const CallArguments call_args(candidate, skill_, workspace_);
    return std::none_of(withholding_.begin(), withholding_.end(),
                        [&](const Rule& rule) { return rule_matches(rule, skill_.id, call_args); });
}

}  // namespace skillhost::policy
