#include "llm/role_check.hpp"

#include <boost/json.hpp>

namespace skillhost::llm {

RoleTestResult test_role(ModelRouter& router, std::string_view role, std::string_view mode,
                         const std::atomic<bool>* cancel) {
    namespace json = boost::json;
    RoleTestResult result;
    result.role = std::string(role);
    result.mode = std::string(mode);
    auto resolution = router.resolve(role, mode);
    if (!resolution) {
        result.error = resolution.error();
        return result;
    }
    result.model_name = resolution->model_name;
    result.backend = resolution->spec.backend;
    result.model = resolution->spec.model;

    ChatRequest request;
    request.role = std::string(role);
    request.cognitive_mode = std::string(mode);
    request.messages = {
        {"system", "You are a health check. Answer with the JSON object {\"ok\": true} and nothing else."},
        {"user", "Are you there? Answer {\"ok\": true}."}};
    request.json_schema = json::object{{"type", "object"},
                                       {"properties", json::object{{"ok", json::object{{"type", "boolean"}}}}},
                                       {"required", json::array{"ok"}},
                                       {"additionalProperties", false}};
    request.schema_name = "health_check";
    request.temperature = 0.0;
    request.max_tokens = 32;
    request.context = json::object{{"task", "probe"}};

    auto response = router.chat(request, cancel);
    if (!response) {
        result.error = response.error();
        return result;
    }
    result.ok = true;
    result.latency = response->latency;
    result.backend = response->backend;
    result.model = response->model;
    result.content = response->content;
    json::error_code ec;
    const auto parsed = json::parse(response->content, ec);
    if (!ec && parsed.is_object()) {
        const auto* ok = parsed.as_object().if_contains("ok");
        result.structured_output_ok = ok && ok->is_bool() && ok->as_bool();
    }
    return result;
}

}  // namespace skillhost::llm
