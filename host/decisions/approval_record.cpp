#include "decisions/approval_record.hpp"

namespace skillhost::decisions {

const char* to_string(ApprovalState state) {
    switch (state) {
        case ApprovalState::pending: return "pending";
        case ApprovalState::approved: return "approved";
        case ApprovalState::executed: return "executed";
        case ApprovalState::failed: return "failed";
        case ApprovalState::rejected: return "rejected";
        case ApprovalState::expired: return "expired";
    }
    return "pending";
}

std::optional<ApprovalState> parse_approval_state(std::string_view text) {
    constexpr ApprovalState states[] = {ApprovalState::pending, ApprovalState::approved, ApprovalState::executed,
                                        ApprovalState::failed,  ApprovalState::rejected, ApprovalState::expired};
    return state_named(text, states);
}

ApprovalState approval_state(DecisionState state) {
    switch (state) {
        case DecisionState::pending: return ApprovalState::pending;
        case DecisionState::claimed: return ApprovalState::approved;
        case DecisionState::succeeded: return ApprovalState::executed;
        case DecisionState::failed: return ApprovalState::failed;
        case DecisionState::rejected: return ApprovalState::rejected;
        case DecisionState::expired: return ApprovalState::expired;
    }
    return ApprovalState::failed;
}

DecisionState decision_state(ApprovalState state) {
    switch (state) {
        case ApprovalState::pending: return DecisionState::pending;
        case ApprovalState::approved: return DecisionState::claimed;
        case ApprovalState::executed: return DecisionState::succeeded;
        case ApprovalState::failed: return DecisionState::failed;
        case ApprovalState::rejected: return DecisionState::rejected;
        case ApprovalState::expired: return DecisionState::expired;
    }
    return DecisionState::failed;
}

boost::json::object ApprovalRecord::to_json() const {
    boost::json::object out = call_json(to_string(state));
    out["preview"] = preview;
    add_outcome_json(out, "resolved_by", resolved_by, "resolved_at", resolved_at);
    return out;
}

std::string ApprovalRecord::summary_line() const {
    return summary(to_string(state), state == ApprovalState::pending, "resolved", resolved_at, preview);
}

std::string ApprovalRecord::to_text() const {
    return call_text(to_string(state), "preview", preview) +
           outcome_text("resolved_by", resolved_by, "resolved_at", resolved_at);
}

}  // namespace skillhost::decisions
