// The errors every kind of pending decision can meet, built once from the kind's words
// (DecisionKindRules), so an approval and a question say the same thing the same way: which one,
// how it stands now, and where to look (`skillhost <command> show ID`).
#pragma once

#include "base/error.hpp"
#include "decisions/pending_decision.hpp"
#include "decisions/resolver.hpp"

#include <optional>

#include <string_view>

namespace skillhost::decisions {

struct DecisionKindRules;

// No decision of this kind with `id` (or one the viewer may not see).
Error decision_not_found(const DecisionKindRules& rules, std::string_view id);
// The kind's NOT_ALLOWED error unless `decider` is the user `record` is for, or an owner.
std::optional<Error> not_theirs_to_decide(const DecisionKindRules& rules, const PendingDecision& record,
                                          const Resolver& decider);
// `record` is no longer pending: details.state says how it is now, details.<decided_by> who decided.
Error decision_already_decided(const DecisionKindRules& rules, const PendingDecision& record);
// `record` passed its expiry before anyone decided; it is marked expired.
Error decision_expired(const DecisionKindRules& rules, const PendingDecision& record);
// `record`'s outcome was to be recorded, but it is not claimed.
Error decision_not_claimed(const DecisionKindRules& rules, const PendingDecision& record);

}  // namespace skillhost::decisions
