#include "mcp/client_sampling.hpp"
#include "llm/error_codes.hpp"
#include "plugin/error_codes.hpp"

#include "app/router_completion_service.hpp"
#include "base/json_text.hpp"

#include <boost/json/serialize.hpp>

namespace skillhost::mcp {

namespace json = boost::json;

namespace {

constexpr int kDefaultMaxTokens = 1024;

Error failed(std::string why) {
    return Error{errors::kLlmFailed,
                 "the MCP client did not answer the completion request: " + std::move(why),
                 {{"backend", "mcp-client"}},
                 {"retry later, or run the skill where a model is configured (models.yaml)"}};
}

}  // namespace

Result<json::object> sampling_params(std::string_view role, std::string_view request_json) {
    auto request = app::chat_request_from_abi(role, request_json);
    if (!request) return request.error();
    std::string system;
    json::array messages;
    for (const auto& message : request->messages) {
        if (message.role == "system") {
            if (!system.empty()) system += "\n\n";
            system += message.content;
            continue;
        }
        messages.push_back(json::object{{"role", message.role},
                                        {"content", json::object{{"type", "text"}, {"text", message.content}}}});
    }
    if (messages.empty())
        return Error{errors::kLlmBadRequest, "the completion request has only system messages; add a user message"};
    if (request->json_schema) {
        if (!system.empty()) system += "\n\n";
        system += "Answer with one JSON value matching this JSON Schema, and nothing else: " +
                  json::serialize(*request->json_schema);
    }
    json::object params{{"messages", std::move(messages)},
                        {"maxTokens", request->max_tokens ? *request->max_tokens : kDefaultMaxTokens},
                        {"includeContext", "none"}};
    if (!system.empty()) params["systemPrompt"] = std::move(system);
    if (request->temperature) params["temperature"] = *request->temperature;
    params["_meta"] = json::object{{"skillhost/role", role}};
    return params;
}

Result<SampledAnswer> read_sampling_answer(const json::object& response) {
    if (const json::value* error = response.if_contains("error")) {
        std::string message = "it answered with an error";
        if (const json::object* e = error->if_object())
            if (const json::value* m = e->if_contains("message"); m && m->is_string())
                message += ": " + std::string(std::string_view(m->get_string()).substr(0, 300));
        return failed(std::move(message));
    }
    const json::value* result = response.if_contains("result");
    const json::object* r = result ? result->if_object() : nullptr;
    const json::value* content = r ? r->if_contains("content") : nullptr;
    // 2025-11-25 allows an array of content blocks; a skill receives their text joined.
    json::array blocks;
    if (content && content->is_object())
        blocks.push_back(*content);
    else if (content && content->is_array())
        blocks = content->get_array();
    else
        return failed("its answer has no content");
    std::string text;
    for (const auto& block : blocks) {
        const json::object* b = block.if_object();
        const json::value* type = b ? b->if_contains("type") : nullptr;
        const json::value* t = b ? b->if_contains("text") : nullptr;
        if (!type || !type->is_string() || type->get_string() != "text" || !t || !t->is_string())
            return failed("it answered with content that is not text; skills receive text only");
        text += t->get_string();
    }
    SampledAnswer answer;
    if (const json::value* model = r->if_contains("model"); model && model->is_string())
        answer.model = std::string(std::string_view(model->get_string()).substr(0, 200));
    answer.abi_json =
        json::serialize(json::object{{"content", text}, {"model", answer.model}, {"backend", "mcp-client"}});
    return answer;
}

}  // namespace skillhost::mcp
