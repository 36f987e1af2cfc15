#include "operator/planner_output.hpp"
#include "operator/error_codes.hpp"

#include <boost/json.hpp>

namespace skillhost::op {
namespace {

namespace json = boost::json;

Error invalid(std::string reason, std::string_view text) {
    Error error{errors::kPlannerOutputInvalid,
                "the planner's answer is not a valid plan: " + reason +
                    " — the model must answer with JSON {thought, action:{tool,args}} or {thought, respond:true}",
                {},
                {"Use a model that supports structured output, or check models.yaml"}};
    error.details["reason"] = std::move(reason);
    error.details["text"] = std::string(text.substr(0, 2000));
    return error;
}

}  // namespace

const json::object& planner_schema() {
    static const json::object schema = json::parse(R"({
      "type": "object",
      "properties": {
        "thought": {"type": "string"},
        "action": {
          "type": "object",
          "properties": {"tool": {"type": "string"}, "args": {"type": "object"}},
          "required": ["tool", "args"]
        },
        "respond": {"type": "boolean"},
        "response_style": {"type": "string", "enum": ["default", "strict", "summary", "verbatim"]},
        "note": {"type": "string"}
      },
      "required": ["thought"]
    })")
                                           .as_object();
    return schema;
}

std::string extract_json_object(std::string_view text) {
    for (std::size_t start = text.find('{'); start != std::string_view::npos; start = text.find('{', start + 1)) {
        int depth = 0;
        bool in_string = false;
        bool escaped = false;
        for (std::size_t i = start; i < text.size(); ++i) {
            const char c = text[i];
            if (in_string) {
                if (escaped)
                    escaped = false;
                else if (c == '\\')
                    escaped = true;
                else if (c == '"')
                    in_string = false;
                continue;
            }
            if (c == '"')
                in_string = true;
            else if (c == '{')
                ++depth;
            else if (c == '}' && --depth == 0) {
                std::string candidate(text.substr(start, i - start + 1));
                boost::system::error_code ec;
                auto parsed = json::parse(candidate, ec);
                if (!ec && parsed.is_object()) return candidate;
                break;
            }
        }
    }
    return {};
}

Result<PlannerOutput> parse_planner_output(std::string_view text) {
    PlannerOutput out;
    boost::system::error_code ec;
    json::value value = json::parse(text, ec);
    if (ec || !value.is_object()) {
        const std::string extracted = extract_json_object(text);
        if (extracted.empty()) return invalid("no JSON object found", text);
        value = json::parse(extracted);
        out.repaired = true;
    }
    const auto& o = value.as_object();
    if (const auto* thought = o.if_contains("thought"); thought && thought->is_string()) {
        out.thought = std::string(thought->as_string());
    }
    if (const auto* respond = o.if_contains("respond"); respond) {
        if (!respond->is_bool()) return invalid("respond must be true or false", text);
        out.respond = respond->as_bool();
    }
    for (const char* key : {"response_style", "responseStyle"}) {
        if (const auto* style = o.if_contains(key); style && style->is_string()) {
            const std::string s(style->as_string());
            if (s != "default" && s != "strict" && s != "summary" && s != "verbatim") {
                return invalid("response_style must be default, strict, summary or verbatim, not '" + s + "'", text);
            }
            out.response_style = s;
        }
    }
    if (const auto* note = o.if_contains("note"); note && note->is_string()) out.note = std::string(note->as_string());
    if (const auto* action = o.if_contains("action"); action && !action->is_null()) {
        if (!action->is_object()) return invalid("action must be an object {tool, args}", text);
        const auto& a = action->as_object();
        const auto* tool = a.if_contains("tool");
        if (!tool || !tool->is_string() || tool->as_string().empty()) {
            return invalid("action.tool must name a tool from the catalog", text);
        }
        store::Action parsed{std::string(tool->as_string()), {}};
        if (const auto* args = a.if_contains("args"); args && !args->is_null()) {
            if (!args->is_object()) return invalid("action.args must be an object", text);
            parsed.args = args->as_object();
        }
        if (!out.respond) out.action = std::move(parsed);
    }
    if (!out.action && !out.respond) return invalid("it has neither an action nor respond:true", text);
    return out;
}

}  // namespace skillhost::op
