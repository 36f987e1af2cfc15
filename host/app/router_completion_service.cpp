#include "app/router_completion_service.hpp"
#include "llm/error_codes.hpp"
#include "plugin/error_codes.hpp"

#include <boost/json.hpp>

namespace skillhost::app {
namespace {

namespace json = boost::json;

Error bad_request(const std::string& problem) {
    return Error{errors::kLlmBadRequest,
                 "the completion request is invalid: " + problem +
                     " — send {\"messages\":[{\"role\":\"system|user|assistant\",\"content\":\"...\"}], "
                     "\"temperature\"?: number, \"max_tokens\"?: integer, \"json_schema\"?: object}",
                 {},
                 {}};
}

}  // namespace

Result<llm::ChatRequest> chat_request_from_abi(std::string_view role, std::string_view request_json) {
    json::error_code ec;
    const auto parsed = json::parse(request_json, ec);
    if (ec || !parsed.is_object()) return bad_request("it is not a JSON object");
    const auto& object = parsed.as_object();
    llm::ChatRequest request;
    request.role = std::string(role);
    const auto* messages = object.if_contains("messages");
    if (!messages || !messages->is_array() || messages->as_array().empty()) {
        return bad_request("`messages` must be a non-empty array");
    }
    for (const auto& item : messages->as_array()) {
        const auto* message = item.if_object();
        const auto* message_role = message ? message->if_contains("role") : nullptr;
        const auto* content = message ? message->if_contains("content") : nullptr;
        if (!message_role || !message_role->is_string() || !content || !content->is_string()) {
            return bad_request("every message needs string `role` and `content`");
        }
        const std::string message_role_text(message_role->as_string());
        if (message_role_text != "system" && message_role_text != "user" && message_role_text != "assistant") {
            return bad_request("message role '" + message_role_text + "' is not system, user or assistant");
        }
        request.messages.push_back({message_role_text, std::string(content->as_string())});
    }
    for (const auto& field : object) {
        const std::string key(field.key());
        const json::value& value = field.value();
        if (key == "messages") continue;
        if (key == "temperature") {
            if (!value.is_number()) return bad_request("`temperature` must be a number");
            request.temperature = value.to_number<double>();
        } else if (key == "max_tokens") {
            if (!value.is_int64() || value.as_int64() <= 0)
                return bad_request("`max_tokens` must be a positive integer");
            request.max_tokens = static_cast<int>(value.as_int64());
        } else if (key == "json_schema") {
            if (!value.is_object()) return bad_request("`json_schema` must be an object");
            request.json_schema = value.as_object();
        } else if (key == "cognitive_mode") {
            if (!value.is_string()) return bad_request("`cognitive_mode` must be a string");
            request.cognitive_mode = std::string(value.as_string());
        } else if (key == "context") {
            if (!value.is_object()) return bad_request("`context` must be an object");
            request.context = value.as_object();
        } else {
            return bad_request("unknown field '" + key + "'");
        }
    }
    return request;
}

RouterCompletionService::RouterCompletionService(std::shared_ptr<llm::ModelRouter> router)
    : router_(std::move(router)) {}

Result<std::string> RouterCompletionService::complete(const plugin::CompletionOrigin& origin, std::string_view role,
                                                      std::string_view request_json) {
    auto request = chat_request_from_abi(role, request_json);
    if (!request) return request.error();
    request->user_id = std::string(origin.user_id);
    request->run_id = std::string(origin.run_id);
    auto response = router_->chat(*request);
    if (!response) {
        Error error = response.error();
        if (error.is(errors::kLlmNoModel)) {
            error.details["cause_code"] = error.code.str();
            error.recode(errors::kLlmUnavailable);
        }
        error.details["user"] = std::string(origin.user_id);
        return error;
    }
    return json::serialize(
        json::object{{"content", response->content}, {"model", response->model}, {"backend", response->backend}});
}

}  // namespace skillhost::app
