// What the queues of each kind (ApprovalQueue, ElicitationQueue) share when they turn a
// PendingDecision into their own record and back: the call's fields have the same names in every
// kind's request and record, so they are copied once, here.
#pragma once

#include "base/error.hpp"
#include "decisions/pending_decision.hpp"

#include <utility>
#include <vector>

namespace skillhost::decisions {

// A new decision of the call `ask` describes; the kind's own request is the caller's to add.
inline PendingDecision decision_for(const DecisionAsk& ask) {
    PendingDecision draft;
    static_cast<DecisionAsk&>(draft) = ask;  // the call's fields; the rest is the queue's
    return draft;
}

// The call's fields and the outcome of `decision`, copied into a kind's record.
template <class Record>
void copy_call_fields(const PendingDecision& decision, Record& record) {
    static_cast<DecisionRecord&>(record) = static_cast<const DecisionRecord&>(decision);
}

}  // namespace skillhost::decisions
