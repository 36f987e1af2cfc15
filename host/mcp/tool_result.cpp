#include "mcp/tool_result.hpp"

#include "base/json_text.hpp"

namespace skillhost::mcp {

namespace json = boost::json;

std::string failure_text(const Error& error) {
    std::string text = error.code + ": " + error.message;
    for (const auto& s : error.suggestions) text += "\n- " + s;
    return text;
}

json::object render_call_result(const exec::CallOutcome& outcome, std::string_view user_id) {
    const exec::SkillResult& r = outcome.result;
    json::object out;
    if (r.ok) {
        if (!r.content.empty()) {
            // The skill chose what to show ("skillhost.content/1"); its structured result, when it
            // has one, still comes as structuredContent for clients that read the outputSchema.
            out["content"] = r.content;
            if (r.output.is_object() && !r.output.get_object().empty()) out["structuredContent"] = r.output;
            out["isError"] = false;
            return out;
        }
        // A text result is shown as its text, not as a quoted JSON string; anything else as JSON.
        std::string text = r.output.is_string() ? std::string(r.output.get_string()) : compact_json(r.output);
        out["content"] = json::array{json::object{{"type", "text"}, {"text", std::move(text)}}};
        if (r.output.is_object()) out["structuredContent"] = r.output;
        out["isError"] = false;
        return out;
    }
    Error error = r.error;
    if (outcome.approval_id) {
        const std::string& id = *outcome.approval_id;
        error.details["approval_id"] = id;
        const std::string who = user_id.empty() ? std::string() : " --user " + std::string(user_id);
        error.suggestions.insert(error.suggestions.begin(),
                                 {"approval id: " + id, "approve it: skillhost approvals approve " + id + who,
                                  "or reject it: skillhost approvals reject " + id + " --reason TEXT"});
    }
    out["content"] = json::array{json::object{{"type", "text"}, {"text", failure_text(error)}}};
    out["isError"] = true;
    out["_meta"] = json::object{{"skillhost/error", error.to_json()}};
    return out;
}

}  // namespace skillhost::mcp
