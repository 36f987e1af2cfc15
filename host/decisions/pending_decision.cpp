#include "decisions/pending_decision.hpp"

namespace skillhost::decisions {

const char* to_string(DecisionKind kind) {
    switch (kind) {
        case DecisionKind::approval: return "approval";
        case DecisionKind::question: return "question";
        case DecisionKind::definition_change: return "definition_change";
    }
    return "approval";
}

std::optional<DecisionKind> parse_decision_kind(std::string_view text) {
    for (auto kind : {DecisionKind::approval, DecisionKind::question, DecisionKind::definition_change})
        if (text == to_string(kind)) return kind;
    return std::nullopt;
}

const char* to_string(DecisionState state) {
    switch (state) {
        case DecisionState::pending: return "pending";
        case DecisionState::claimed: return "claimed";
        case DecisionState::succeeded: return "succeeded";
        case DecisionState::failed: return "failed";
        case DecisionState::rejected: return "rejected";
        case DecisionState::expired: return "expired";
    }
    return "pending";
}

std::optional<DecisionState> parse_decision_state(std::string_view text) {
    constexpr DecisionState states[] = {DecisionState::pending, DecisionState::claimed,  DecisionState::succeeded,
                                        DecisionState::failed,  DecisionState::rejected, DecisionState::expired};
    return state_named(text, states);
}

}  // namespace skillhost::decisions
