// A call waiting for a person's decision, whatever the kind of decision: an approval (may this call
// run?) or a question (a skill asked the user something mid-call). Both are kept in one table
// (`pending_decisions`) and move along one state machine; each kind names the states in its own
// words (an approval is `approved` where a question is `answered`) and reads its own part of
// `request` and `answer`. A new kind (the gateway's definition_change) is one more DecisionKind and
// one more DecisionKindRules, not another queue.
#pragma once

#include "decisions/decision_record.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::decisions {

enum class DecisionKind { approval, question, definition_change };
const char* to_string(DecisionKind);
std::optional<DecisionKind> parse_decision_kind(std::string_view);

// pending -> claimed -> succeeded | failed; pending -> rejected | expired. Nothing else (the
// database refuses any other edge too). `claimed` is the exactly-once step: whoever claimed a
// decision runs the call that follows it, once.
enum class DecisionState { pending, claimed, succeeded, failed, rejected, expired };
const char* to_string(DecisionState);
std::optional<DecisionState> parse_decision_state(std::string_view);

// The one of `states` whose to_string() is `text` (a kind's states read back from their words).
template <class State, std::size_t N>
std::optional<State> state_named(std::string_view text, const State (&states)[N]) {
    for (const State state : states)
        if (text == to_string(state)) return state;
    return std::nullopt;
}

struct PendingDecision : DecisionRecord {
    DecisionKind kind = DecisionKind::approval;
    // What the person is asked, in the kind's shape: an approval's {"preview"}, a question's
    // {"message", "requestedSchema", "prior_answers"}.
    boost::json::object request;
    DecisionState state = DecisionState::pending;
    boost::json::value answer;             // what the claim carried (a question's {action, content}); null otherwise
    std::string resolved_by;               // who claimed or rejected it
    std::optional<TimePoint> resolved_at;  // when claimed, rejected or expired
};

}  // namespace skillhost::decisions
