// One queued call waiting for (or past) a human decision.
#pragma once

#include "base/utc_time.hpp"
#include "auth/requester.hpp"
#include "decisions/decision_record.hpp"
#include "decisions/decision_kinds.hpp"
#include "decisions/pending_decision.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::decisions {

struct ApprovalRecord : DecisionRecord {
    std::string preview;          // what will happen, for the approver
    std::string definition_hash;  // a foreign tool's definition it was asked against; empty otherwise
    ApprovalState state = ApprovalState::pending;
    std::string resolved_by;               // who approved or rejected; empty otherwise
    std::optional<TimePoint> resolved_at;  // when approved/rejected/expired

    boost::json::object to_json() const;
    // One line for `approvals list`: "apr-… pending bob fs_write expires 2026-… <preview>".
    std::string summary_line() const;
    // Every field, one per line, for `approvals show`.
    std::string to_text() const;
};

}  // namespace skillhost::decisions
