// One question a skill asked a user that no front end could put to them while the call ran (the
// CLI's `call`, the HTTP API, an MCP client without elicitation): queued until the user answers,
// then the call runs again with the answer.
#pragma once

#include "base/utc_time.hpp"
#include "auth/requester.hpp"
#include "decisions/decision_record.hpp"
#include "decisions/decision_kinds.hpp"
#include "decisions/pending_decision.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace skillhost::decisions {

// What the user answered: accept (with the form's fields), decline or cancel.
struct ElicitationAnswer {
    std::string action;  // "accept" | "decline" | "cancel"
    boost::json::object content;

    // The "skillhost.elicit/1" answer: {"action":"accept","content":{...}} or {"action":"decline"}.
    boost::json::object to_json() const;
};

struct ElicitationRecord : DecisionRecord {
    std::string message;  // what the skill asks
    boost::json::object requested_schema;
    // Questions this call asked and had answered before this one, in order:
    // [{"request": {message, requestedSchema}, "answer": {action, content?}}, ...].
    boost::json::array prior_answers;
    ElicitationState state = ElicitationState::pending;
    std::optional<ElicitationAnswer> answer;  // once answered
    std::string answered_by;
    std::optional<TimePoint> answered_at;  // when answered or expired

    // {"message", "requestedSchema"}: the request as the skill sent it.
    boost::json::object request_json() const;
    boost::json::object to_json() const;
    // One line for `elicitations list`: "eli-… pending bob rich_elicit expires … <message>".
    std::string summary_line() const;
    // Every field, one per line, and the form's fields with their types, for `elicitations show`.
    std::string to_text() const;
};

}  // namespace skillhost::decisions
