#include "decisions/approval_record.hpp"

#include <boost/json/serialize.hpp>

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
    for (auto state : {ApprovalState::pending, ApprovalState::approved, ApprovalState::executed, ApprovalState::failed,
                       ApprovalState::rejected, ApprovalState::expired}) {
        if (text == to_string(state)) return state;
    }
    return std::nullopt;
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
    boost::json::object out;
    out["id"] = id;
    out["user"] = user_id;
    out["skill"] = skill_id;
    out["arguments"] = arguments;
    out["requested_at"] = format_utc_timestamp(requested_at);
    out["requested_by"] = requested_by.to_text();
    if (!requested_token.empty()) out["requested_token"] = requested_token;
    out["preview"] = preview;
    out["expires_at"] = format_utc_timestamp(expires_at);
    out["state"] = to_string(state);
    out["resolved_by"] = resolved_by.empty() ? boost::json::value(nullptr) : boost::json::value(resolved_by);
    out["resolved_at"] =
        resolved_at ? boost::json::value(format_utc_timestamp(*resolved_at)) : boost::json::value(nullptr);
    out["completed_at"] =
        completed_at ? boost::json::value(format_utc_timestamp(*completed_at)) : boost::json::value(nullptr);
    out["reason"] = reason.empty() ? boost::json::value(nullptr) : boost::json::value(reason);
    out["result"] = result;
    return out;
}

std::string ApprovalRecord::summary_line() const {
    std::string line = id + "  " + to_string(state) + "  " + user_id + "  " + skill_id + "  ";
    if (state == ApprovalState::pending)
        line += "expires " + format_utc_timestamp(expires_at);
    else if (resolved_at)
        line += "resolved " + format_utc_timestamp(*resolved_at);
    return line + "  " + preview;
}

std::string ApprovalRecord::to_text() const {
    std::string out;
    auto field = [&](const char* name, const std::string& value) {
        if (!value.empty()) out += std::string(name) + ": " + value + "\n";
    };
    field("id", id);
    field("state", to_string(state));
    field("user", user_id);
    field("skill", skill_id);
    field("preview", preview);
    field("arguments", boost::json::serialize(arguments));
    field("requested_by", requested_by.to_text());
    field("requested_at", format_utc_timestamp(requested_at));
    field("expires_at", format_utc_timestamp(expires_at));
    field("resolved_by", resolved_by);
    if (resolved_at) field("resolved_at", format_utc_timestamp(*resolved_at));
    if (completed_at) field("completed_at", format_utc_timestamp(*completed_at));
    field("reason", reason);
    if (!result.is_null()) field("result", boost::json::serialize(result));
    return out;
}

}  // namespace skillhost::decisions
