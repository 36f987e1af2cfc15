#include "policy/approval_record.hpp"


namespace skillhost::policy {

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
    for (auto state : {ApprovalState::pending, ApprovalState::approved, ApprovalState::executed,
                       ApprovalState::failed, ApprovalState::rejected, ApprovalState::expired}) {
        if (text == to_string(state)) return state;
    }
    return std::nullopt;
}

boost::json::object ApprovalRecord::to_json() const {
    boost::json::object out;
    out["id"] = id;
    out["user"] = user_id;
    out["skill"] = skill_id;
    out["arguments"] = arguments;
    out["requested_at"] = format_utc_timestamp(requested_at);
    out["requested_by"] = requested_by;
    out["preview"] = preview;
    out["expires_at"] = format_utc_timestamp(expires_at);
    out["state"] = to_string(state);
    out["resolved_by"] = resolved_by.empty() ? boost::json::value(nullptr) : boost::json::value(resolved_by);
    out["resolved_at"] = resolved_at ? boost::json::value(format_utc_timestamp(*resolved_at)) : boost::json::value(nullptr);
    out["completed_at"] = completed_at ? boost::json::value(format_utc_timestamp(*completed_at)) : boost::json::value(nullptr);
    out["reason"] = reason.empty() ? boost::json::value(nullptr) : boost::json::value(reason);
    out["result"] = result;
    return out;
}

}  // namespace skillhost::policy
