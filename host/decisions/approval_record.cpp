#include "decisions/approval_record.hpp"

namespace skillhost::decisions {

boost::json::object ApprovalRecord::to_json() const {
    boost::json::object out = call_json(to_string(state));
    out["preview"] = preview;
    if (!definition_hash.empty()) out["definition_hash"] = definition_hash;
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
