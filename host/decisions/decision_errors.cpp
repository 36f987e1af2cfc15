#include "decisions/decision_errors.hpp"

#include "decisions/pending_decisions.hpp"

#include "base/utc_time.hpp"

#include <string>

namespace skillhost::decisions {
namespace {

Error about(const DecisionKindRules& rules, const ErrorCode& code, std::string_view id, std::string message) {
    Error error{code, std::move(message), {}, {}};
    error.details[std::string(rules.noun) + "_id"] = std::string(id);
    return error;
}

std::string named(const DecisionKindRules& rules, std::string_view id) {
    return std::string(rules.noun) + " " + std::string(id);
}

std::string show_command(const DecisionKindRules& rules, std::string_view id) {
    return "`skillhost " + rules.command() + " show " + std::string(id) + "`";
}

}  // namespace

Error decision_not_found(const DecisionKindRules& rules, std::string_view id) {
    return about(rules, rules.codes.not_found, id,
                 "no " + std::string(rules.noun) + " `" + std::string(id) + "`; list yours with `skillhost " +
                     rules.command() + " list --all`");
}

std::optional<Error> not_theirs_to_decide(const DecisionKindRules& rules, const PendingDecision& record,
                                          const Resolver& decider) {
    if (decider.is_owner() || decider.user_id == record.user_id) return std::nullopt;
    Error error =
        about(rules, rules.codes.not_allowed, record.id,
              "user " + decider.user_id + " may not " + std::string(rules.decide) + " " + named(rules, record.id) +
                  ", which is " + record.user_id + "'s" + std::string(rules.who_may_decide));
    error.details["user"] = decider.user_id;
    error.details["requested_for"] = record.user_id;
    return error;
}

Error decision_already_decided(const DecisionKindRules& rules, const PendingDecision& record) {
    const char* state = rules.state_word(record.state);
    std::string how = std::string("is already ") + state;
    if (!record.resolved_by.empty()) how += " (" + std::string(rules.unresolved) + " by " + record.resolved_by + ")";
    Error error = about(rules, rules.codes.already_decided, record.id,
                        named(rules, record.id) + " " + how + std::string(rules.only_pending) + " — see " +
                            show_command(rules, record.id));
    error.details["state"] = state;
    error.details[rules.decided_by()] = record.resolved_by;
    return error;
}

Error decision_expired(const DecisionKindRules& rules, const PendingDecision& record) {
    const std::string at = format_utc_timestamp(record.expires_at);
    Error error = about(rules, rules.codes.expired, record.id,
                        named(rules, record.id) + " expired at " + at + std::string(rules.after_expiry));
    error.details["expires_at"] = at;
    error.details["state"] = "expired";
    return error;
}

Error decision_not_claimed(const DecisionKindRules& rules, const PendingDecision& record) {
    const char* state = rules.state_word(record.state);
    Error error = about(rules, rules.codes.not_claimed, record.id,
                        named(rules, record.id) + " is " + state + ", " + std::string(rules.not_claimed_because) +
                            "; see " + show_command(rules, record.id));
    error.details["state"] = state;
    return error;
}

}  // namespace skillhost::decisions
