#include "mcp/skill_elicitation.hpp"

#include "base/json_text.hpp"
#include "mcp/elicitation_form.hpp"

#include <boost/json/serialize.hpp>

namespace skillhost::mcp {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxRequestBytes = 64 * 1024;

Error invalid(const std::string& problem) {
    return Error{"ELICITATION_INVALID",
                 "the elicitation request is invalid: " + problem +
                     "; send {\"message\": \"...\", \"requestedSchema\": {\"type\": \"object\", \"properties\": "
                     "{NAME: {\"type\": \"string\"|\"number\"|\"integer\"|\"boolean\"|\"array\", ...}}, "
                     "\"required\"?: [...]}} as in the MCP 2025-11-25 elicitation schema"};
}

Error bad_answer(const std::string& problem) {
    return Error{"ELICITATION_FAILED",
                 "the user's answer could not be used: " + problem,
                 {},
                 {"ask again, or continue without the input"}};
}

}  // namespace

Result<json::object> elicitation_params(std::string_view request_json) {
    if (request_json.size() > kMaxRequestBytes)
        return invalid("it has " + std::to_string(request_json.size()) + " bytes, more than " +
                       std::to_string(kMaxRequestBytes));
    json::value parsed;
    std::string problem;
    if (!parse_json(request_json, parsed, problem)) return invalid("it is not JSON (" + problem + ")");
    const json::object* request = parsed.if_object();
    if (!request) return invalid("it must be a JSON object");
    for (const auto& member : *request)
        if (member.key() != "message" && member.key() != "requestedSchema")
            return invalid("unknown field \"" + std::string(member.key().substr(0, 40)) + "\"");
    const json::value* message = request->if_contains("message");
    if (!message || !message->is_string() || message->get_string().empty())
        return invalid("\"message\" must be a non-empty string");
    const json::value* schema = request->if_contains("requestedSchema");
    const json::object* s = schema ? schema->if_object() : nullptr;
    if (!s) return invalid("\"requestedSchema\" must be an object");
    if (auto form_problem = form_schema_problem(*s)) return invalid(*form_problem);
    return json::object{{"message", *message}, {"requestedSchema", *schema}};
}

Result<std::string> read_elicitation_answer(const json::object& response, const json::object& requested_schema) {
    if (const json::value* error = response.if_contains("error")) {
        std::string why = "the client answered with an error";
        if (const json::object* e = error->if_object())
            if (const json::value* m = e->if_contains("message"); m && m->is_string())
                why += ": " + std::string(std::string_view(m->get_string()).substr(0, 300));
        return bad_answer(why);
    }
    const json::value* result = response.if_contains("result");
    const json::object* r = result ? result->if_object() : nullptr;
    const json::value* action = r ? r->if_contains("action") : nullptr;
    if (!action || !action->is_string()) return bad_answer("the answer has no action");
    const std::string_view kind = action->get_string();
    if (kind == "decline" || kind == "cancel") return json::serialize(json::object{{"action", kind}});
    if (kind != "accept") return bad_answer("the action \"" + std::string(kind.substr(0, 40)) + "\" is unknown");
    json::object content;
    if (const json::value* c = r->if_contains("content"); c && !c->is_null()) {
        if (!c->is_object()) return bad_answer("the accepted content is not an object");
        content = c->get_object();
    }
    if (auto problem = form_answer_problem(requested_schema, content)) return bad_answer(*problem);
    return json::serialize(json::object{{"action", "accept"}, {"content", std::move(content)}});
}

}  // namespace skillhost::mcp
