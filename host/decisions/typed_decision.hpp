// What the queues of each kind (ApprovalQueue, ElicitationQueue) share when they turn a
// PendingDecision into their own record and back: the call's fields have the same names in every
// kind's request and record, so they are copied once, here.
#pragma once

#include "base/error.hpp"
#include "decisions/pending_decision.hpp"

#include <utility>
#include <vector>

namespace skillhost::decisions {

// A new decision of the call `ask` describes (any type with user_id, skill_id, arguments,
// requested_by and requested_token); the kind's own request is the caller's to add.
template <class Ask>
PendingDecision decision_for(const Ask& ask) {
    PendingDecision draft;
    draft.user_id = ask.user_id;
    draft.skill_id = ask.skill_id;
    draft.arguments = ask.arguments;
    draft.requested_by = ask.requested_by;
    draft.requested_token = ask.requested_token;
    return draft;
}

// The call's fields and the outcome of `decision`, copied into a kind's record.
template <class Record>
void copy_call_fields(const PendingDecision& decision, Record& record) {
    static_cast<DecisionRecord&>(record) = static_cast<const DecisionRecord&>(decision);
}

// `decisions` (or their error) as a kind's records.
template <class Record, class Convert>
Result<std::vector<Record>> records_of(Result<std::vector<PendingDecision>> decisions, Convert convert) {
    if (!decisions) return decisions.error();
    std::vector<Record> out;
    out.reserve(decisions->size());
    for (const auto& decision : *decisions) out.push_back(convert(decision));
    return out;
}

// A kind's filter (user_id, states in the kind's words, limit) as the filter of every decision.
template <class Filter>
DecisionFilter decision_filter(const Filter& filter) {
    DecisionFilter decisions{filter.user_id, {}, filter.limit};
    for (const auto state : filter.states) decisions.states.push_back(decision_state(state));
    return decisions;
}

}  // namespace skillhost::decisions
