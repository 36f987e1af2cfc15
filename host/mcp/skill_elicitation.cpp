#include "mcp/skill_elicitation.hpp"
#include "plugin/error_codes.hpp"

#include "decisions/elicitation_form.hpp"

#include <boost/json/serialize.hpp>

namespace skillhost::mcp {

namespace json = boost::json;

namespace {

Error bad_answer(const std::string& problem) {
    return Error{errors::kElicitationFailed,
                 "the user's answer could not be used: " + problem,
                 {},
                 {"ask again, or continue without the input"}};
}

}  // namespace

Result<json::object> elicitation_params(std::string_view request_json) {
    auto request = decisions::parse_elicitation_request(request_json);
    if (!request) return request.error();
    return request->to_json();
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
    if (auto problem = decisions::form_answer_problem(requested_schema, content)) return bad_answer(problem->message);
    return json::serialize(json::object{{"action", "accept"}, {"content", std::move(content)}});
}

}  // namespace skillhost::mcp
