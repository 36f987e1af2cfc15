#include "policy/policy_engine.hpp"
#include "policy/error_codes.hpp"

#include "base/glob.hpp"

namespace skillhost::policy {

using manifest::Risk;
using manifest::TrustLevel;

namespace {

MatchedRule matched(const Rule& rule) {
    return MatchedRule{rule.kind, rule.text, rule.scope, rule.file, rule.line, rule.column};
}

std::string rule_label(const Rule& rule) {
    return std::string(to_string(rule.kind)) + " rule `" + rule.text + "` (" +
           (rule.scope == "global" ? std::string("global") : "user " + rule.scope) + ") at " + rule.location();
}

// Why a rule whose skill glob matched did not match the arguments.
std::string argument_mismatch(const Rule& rule, const CallArguments& args) {
    for (const auto& argument : rule.arguments) {
        const auto& form = args.string_form(argument.name);
        if (!form) return "argument `" + argument.name + "` is absent";
        if (!glob_match(argument.pattern, *form)) {
            return argument.name + "=" + *form + " does not match " + argument.pattern;
        }
    }
    return {};
}

// The auto-approval ladder for a call that is not read-only.
bool ladder_runs(TrustLevel trust, Risk risk) {
    switch (trust) {
        case TrustLevel::observe:
        case TrustLevel::suggest: return false;
        case TrustLevel::supervised_auto: return risk == Risk::low;
        case TrustLevel::bounded_auto: return risk != Risk::high;
        case TrustLevel::adaptive_auto: return true;
    }
    return false;
}

std::string ladder_text(TrustLevel trust) {
    switch (trust) {
        case TrustLevel::observe: return "observe runs only read-only skills";
        case TrustLevel::suggest: return "suggest asks for every call that is not read-only";
        case TrustLevel::supervised_auto: return "supervised_auto runs low risk without asking";
        case TrustLevel::bounded_auto: return "bounded_auto runs low and medium risk without asking";
        case TrustLevel::adaptive_auto: return "adaptive_auto runs every risk without asking";
    }
    return {};
}

}  // namespace

PolicyEngine::PolicyEngine(PolicyConfig config) : config_(std::move(config)) {}

bool PolicyEngine::is_visible(const auth::UserContext& user, const manifest::SkillSpec& skill) const {
    return user.mode != auth::CognitiveMode::emulation || skill.annotations.read_only;
}

Decision PolicyEngine::decide(const auth::UserContext& user, const manifest::SkillSpec& skill,
                              const boost::json::value& args) const {
    return evaluate(user, skill, args, nullptr);
}

Explanation PolicyEngine::explain(const auth::UserContext& user, const manifest::SkillSpec& skill,
                                  const boost::json::value& args) const {
    Explanation explanation;
    explanation.decision = evaluate(user, skill, args, &explanation.steps);
    for (auto step : {DecisionStep::visibility, DecisionStep::rule, DecisionStep::trust, DecisionStep::approval}) {
        bool present = false;
        for (const auto& s : explanation.steps) present = present || s.step == step;
        if (!present) explanation.steps.push_back({step, StepVerdict::not_reached, "an earlier step decided", {}});
    }
    return explanation;
}

Decision PolicyEngine::evaluate(const auth::UserContext& user, const manifest::SkillSpec& skill,
                                const boost::json::value& args, std::vector<ExplainedStep>* story) const {
    Decision decision;
    decision.skill_id = skill.id;
    decision.user_id = user.user_id;
    decision.mode = user.mode;
    decision.current_trust = user.trust;
    decision.required_trust = skill.min_trust;
    auto settle = [&](Outcome outcome, DecisionStep step, const ErrorCode& code, std::string reason) {
        decision.outcome = outcome;
        decision.step = step;
        decision.code = code;
        decision.reason = std::move(reason);
        if (story != nullptr) story->push_back({step, StepVerdict::decided, decision.reason, {}});
        return decision;
    };
    auto pass = [&](DecisionStep step, std::string summary, std::vector<std::string> details = {}) {
        if (story != nullptr) story->push_back({step, StepVerdict::passed, std::move(summary), std::move(details)});
    };

    // 1. Visibility in the cognitive mode.
    if (!is_visible(user, skill)) {
        return settle(Outcome::deny, DecisionStep::visibility, errors::kModeForbids,
                      "skill " + skill.id + " is not read-only and user " + user.user_id +
                          " is in emulation mode, which sees and calls only read-only skills");
    }
    pass(DecisionStep::visibility, user.mode == auth::CognitiveMode::emulation
                                       ? "the skill is read-only, so it is visible in emulation mode"
                                       : "every skill is visible in " + std::string(to_string(user.mode)) + " mode");

    // 2. Rules: deny, then ask, then allow; the user's own rules before the global ones.
    const RuleSet* user_rules = config_.rules_for(user.user_id);
    const CallArguments call_args(args, skill, user.workspace);
    const Rule* ask_rule = nullptr;
    const Rule* allow_rule = nullptr;
    std::vector<std::string> rule_notes;
    std::size_t considered = 0;
    for (RuleKind kind : {RuleKind::deny, RuleKind::ask, RuleKind::allow}) {
        for (const RuleSet* set : {user_rules, &config_.global}) {
            if (set == nullptr) continue;
            for (const Rule& rule : set->of(kind)) {
                ++considered;
                if (!rule_matches_skill(rule, skill.id)) continue;
                if (!rule_matches(rule, skill.id, call_args)) {
                    if (story != nullptr) {
                        rule_notes.push_back(rule_label(rule) + ": the skill matches but " +
                                             argument_mismatch(rule, call_args));
                    }
                    continue;
                }
                if (story != nullptr) rule_notes.push_back(rule_label(rule) + ": matches (first match wins)");
                if (kind == RuleKind::deny) {
                    decision.rule = matched(rule);
                    if (story != nullptr) {
                        story->push_back({DecisionStep::rule, StepVerdict::decided, "", std::move(rule_notes)});
                    }
                    decision.outcome = Outcome::deny;
                    decision.step = DecisionStep::rule;
                    decision.code = errors::kDeniedByRule;
                    decision.reason = "skill " + skill.id + " is denied for user " + user.user_id + " by rule `" +
                                      rule.text + "` at " + rule.location();
                    if (story != nullptr) story->back().summary = decision.reason;
                    return decision;
                }
                (kind == RuleKind::ask ? ask_rule : allow_rule) = &rule;
                break;
            }
            if (ask_rule != nullptr || allow_rule != nullptr) break;
        }
        if (ask_rule != nullptr || allow_rule != nullptr) break;
    }
    if (ask_rule != nullptr)
        decision.rule = matched(*ask_rule);
    else if (allow_rule != nullptr)
        decision.rule = matched(*allow_rule);
    if (story != nullptr) {
        std::string summary;
        if (ask_rule != nullptr)
            summary =
                "ask rule `" + ask_rule->text + "` at " + ask_rule->location() + " matched; approval will be required";
        else if (allow_rule != nullptr)
            summary = "allow rule `" + allow_rule->text + "` at " + allow_rule->location() +
                      " matched; the auto-approval ladder is skipped";
        else
            summary = "no rule matched (" + std::to_string(considered) + " considered)";
        pass(DecisionStep::rule, std::move(summary), std::move(rule_notes));
    }

    // 3. Trust.
    if (user.trust < skill.min_trust) {
        return settle(Outcome::deny, DecisionStep::trust, errors::kTrustTooLow,
                      "skill " + skill.id + " requires trust " + manifest::to_string(skill.min_trust) +
                          " or higher but user " + user.user_id + " has " + manifest::to_string(user.trust));
    }
    if (user.trust == TrustLevel::observe && !skill.annotations.read_only) {
        // Observers watch; they do not even queue changes for someone else to approve.
        decision.required_trust = TrustLevel::suggest;
        return settle(Outcome::deny, DecisionStep::trust, errors::kTrustTooLow,
                      "skill " + skill.id + " is not read-only, which needs trust suggest or higher, but user " +
                          user.user_id + " has observe (observers may only call read-only skills)");
    }
    pass(DecisionStep::trust, std::string("trust ") + manifest::to_string(user.trust) +
                                  " meets the skill's min_trust " + manifest::to_string(skill.min_trust));

    // 4. Approval.
    if (skill.requires_approval) {
        return settle(Outcome::ask, DecisionStep::approval, errors::kApprovalRequired,
                      "skill " + skill.id + " requires approval for every call (requires_approval in its manifest)");
    }
    if (ask_rule != nullptr) {
        return settle(Outcome::ask, DecisionStep::approval, errors::kApprovalRequired,
                      "rule `" + ask_rule->text + "` at " + ask_rule->location() + " asks for approval of " + skill.id);
    }
    if (allow_rule != nullptr) {
        return settle(Outcome::allow, DecisionStep::approval, ErrorCode{},
                      "allowed by rule `" + allow_rule->text + "` at " + allow_rule->location() +
                          ", which skips the auto-approval ladder");
    }
    if (skill.annotations.read_only) {
        return settle(Outcome::allow, DecisionStep::approval, ErrorCode{},
                      "skill " + skill.id + " is read-only, so it runs without approval");
    }
    const std::string risk = manifest::to_string(skill.risk);
    if (ladder_runs(user.trust, skill.risk)) {
        return settle(Outcome::allow, DecisionStep::approval, ErrorCode{},
                      risk + " risk is auto-approved at trust " + manifest::to_string(user.trust) + " (" +
                          ladder_text(user.trust) + ")");
    }
    return settle(Outcome::ask, DecisionStep::approval, errors::kApprovalRequired,
                  "skill " + skill.id + " has " + risk + " risk and is not read-only; at trust " +
                      manifest::to_string(user.trust) + " that needs approval (" + ladder_text(user.trust) + ")");
}

}  // namespace skillhost::policy
