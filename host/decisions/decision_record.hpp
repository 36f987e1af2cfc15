// What the record of every kind of pending decision says about the call that waits: whose it is,
// what it calls, when it was asked and until when, and what became of it. ApprovalRecord and
// ElicitationRecord derive from it and add what only their kind has, so both print and serialise
// these fields the same way.
#pragma once

#include "auth/requester.hpp"
#include "base/utc_time.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace skillhost::decisions {

// The call a decision is about: what each kind's ask (ApprovalRequest, ElicitationAsk) begins with.
struct DecisionAsk {
    std::string user_id;
    std::string skill_id;
    boost::json::value arguments;
    auth::Requester requested_by;
    std::string requested_token{};  // id of the token the call came with; empty: the terminal user
};

struct DecisionRecord : DecisionAsk {
    std::string id;  // the kind's prefix ("apr-", "eli-") + 16 hex digits
    TimePoint requested_at;
    TimePoint expires_at;
    std::optional<TimePoint> completed_at;  // when the call that followed the decision ended
    std::string reason;                     // rejection, failure or expiry note
    boost::json::value result;              // what the call that followed the decision returned

protected:
    // {id, user, skill, arguments, requested_at, requested_by, requested_token?, expires_at, state}.
    boost::json::object call_json(std::string_view state) const;
    // Adds {<by_key>, <at_key>, completed_at, reason, result} (nulls where unset).
    void add_outcome_json(boost::json::object& out, std::string_view by_key, const std::string& by,
                          std::string_view at_key, const std::optional<TimePoint>& at) const;
    // "id: …" … "expires_at: …" lines, with the kind's own line (`label`: `value`) after the skill.
    std::string call_text(std::string_view state, std::string_view label, const std::string& value) const;
    // "<by_label>: …", "<at_label>: …", completed_at, reason and result lines (those that are set).
    std::string outcome_text(std::string_view by_label, const std::string& by, std::string_view at_label,
                             const std::optional<TimePoint>& at) const;
    // "apr-…  pending  bob  fs_write  expires <time>  <what>" (or "<done_word> <time>" once decided).
    std::string summary(std::string_view state, bool pending, std::string_view done_word,
                        const std::optional<TimePoint>& done_at, const std::string& what) const;
};

// "name: value\n", or nothing for an empty value.
void append_field_line(std::string& out, std::string_view name, const std::string& value);

}  // namespace skillhost::decisions
