#include "decisions/definition_change_record.hpp"

#include "decisions/definition_diff.hpp"

namespace skillhost::decisions {

std::string DefinitionChangeRecord::what() const {
    if (tool.empty()) return "changed instructions of server " + server;
    return (old_hash.empty() ? "new tool " : "changed tool ") + tool + " of server " + server;
}

boost::json::object DefinitionChangeRecord::to_json() const {
    boost::json::object out = call_json(to_string(state));
    out["server"] = server;
    out["tool"] = tool;
    out["change"] = what();
    out["old_hash"] = old_hash;
    out["new_hash"] = new_hash;
    out["old_definition"] = old_definition;
    out["new_definition"] = new_definition;
    out["diff"] = diff;
    add_outcome_json(out, "decided_by", decided_by, "decided_at", decided_at);
    return out;
}

std::string DefinitionChangeRecord::summary_line() const {
    return summary(to_string(state), state == DefinitionChangeState::pending, "decided", decided_at, what());
}

std::string DefinitionChangeRecord::to_text() const {
    std::string out = call_text(to_string(state), "change", what());
    append_field_line(out, "old_hash", old_hash.empty() ? std::string("(none: never pinned)") : old_hash);
    append_field_line(out, "new_hash", new_hash);
    out += "diff:\n" + diff_text(diff);
    return out + outcome_text("decided_by", decided_by, "decided_at", decided_at);
}

}  // namespace skillhost::decisions
