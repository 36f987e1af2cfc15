#include "llm/openai_backend.hpp"
#include "llm/error_codes.hpp"

#include "net/http_client.hpp"
#include "llm/line_splitter.hpp"
#include "net/url.hpp"
#include "llm/remote_errors.hpp"

#include <boost/json.hpp>

#include <cstdlib>

namespace skillhost::llm {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

RemoteServer openai_server(const ModelSpec& spec) {
    return RemoteServer{"the OpenAI-compatible server",
                        spec.base_url,
                        spec.model,
                        "start the server (llama.cpp server, vLLM, LM Studio, ...)",
                        "check the model name in models.yaml against GET " +
                            http::join_url(spec.base_url, spec.base_url.ends_with("/v1") ? "/models" : "/v1/models"),
                        spec.api_key_env};
}

void read_usage(const json::object& object, ChatResponse& response) {
    const auto* usage = object.if_contains("usage");
    if (!usage || !usage->is_object()) return;
    const auto& u = usage->as_object();
    if (const auto* n = u.if_contains("prompt_tokens"); n && n->is_int64())
        response.prompt_tokens = static_cast<int>(n->as_int64());
    if (const auto* n = u.if_contains("completion_tokens"); n && n->is_int64()) {
        response.completion_tokens = static_cast<int>(n->as_int64());
    }
}

// choices[0].<field>.content, when it is a string.
const json::string* choice_content(const json::object& object, std::string_view field) {
    const auto* choices = object.if_contains("choices");
    if (!choices || !choices->is_array() || choices->as_array().empty()) return nullptr;
    const auto& first = choices->as_array().front();
    if (!first.is_object()) return nullptr;
    const auto* part = first.as_object().if_contains(field);
    if (!part || !part->is_object()) return nullptr;
    const auto* content = part->as_object().if_contains("content");
    return content && content->is_string() ? &content->as_string() : nullptr;
}

bool has_choices(const json::object& object) {
    const auto* choices = object.if_contains("choices");
    return choices && choices->is_array();
}

}  // namespace

OpenAiBackend::OpenAiBackend(ModelSpec spec) : spec_(std::move(spec)) {}

std::string OpenAiBackend::endpoint() const {
    std::string base = spec_.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    return http::join_url(base, base.ends_with("/v1") ? "/chat/completions" : "/v1/chat/completions");
}

std::string OpenAiBackend::request_body(const ChatRequest& request, bool stream) const {
    json::object body;
    body["model"] = spec_.model;
    json::array messages;
    for (const auto& message : request.messages) {
        messages.push_back(json::object{{"role", message.role}, {"content", message.content}});
    }
    body["messages"] = std::move(messages);
    body["stream"] = stream;
    if (stream) body["stream_options"] = json::object{{"include_usage", true}};
    if (auto t = request.temperature ? request.temperature : spec_.options.temperature) body["temperature"] = *t;
    if (auto m = request.max_tokens ? request.max_tokens : spec_.options.max_tokens) body["max_tokens"] = *m;
    if (request.json_schema) {
        body["response_format"] = json::object{
            {"type", "json_schema"},
            {"json_schema",
             json::object{{"name", request.schema_name}, {"schema", *request.json_schema}, {"strict", true}}}};
    }
    return json::serialize(body);
}

Result<ChatResponse> OpenAiBackend::chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                                         const StreamDeltaHandler& on_delta) {
    const RemoteServer server = openai_server(spec_);
    const auto started = Clock::now();
    const bool stream = static_cast<bool>(on_delta);

    http::HttpRequest http_request;
    http_request.url = endpoint();
    http_request.headers = {{"Content-Type", "application/json"},
                            {"Accept", stream ? "text/event-stream" : "application/json"}};
    if (!spec_.api_key_env.empty()) {
        // Read at call time and never stored, so the key does not end up in logs or dumps.
        const char* key = std::getenv(spec_.api_key_env.c_str());
        if (!key || !*key) {
            Error error{errors::kLlmApiKeyMissing,
                        "model " + spec_.name + " needs an API key in the environment variable " + spec_.api_key_env +
                            ", which is not set — export " + spec_.api_key_env + "=... before starting skillhost",
                        {},
                        {}};
            error.details["model"] = spec_.name;
            error.details["api_key_env"] = spec_.api_key_env;
            return error;
        }
        http_request.headers.emplace_back("Authorization", std::string("Bearer ") + key);
    }
    http_request.body = request_body(request, stream);

    ChatResponse response;
    response.backend = "openai";
    response.model = spec_.model;
    std::optional<Error> stream_error;
    bool saw_done = false;

    LineSplitter lines([&](std::string_view line) {
        if (stream_error || saw_done) return;
        if (!line.starts_with("data:")) return;  // comments, event names, blank separators
        std::string_view payload = line.substr(5);
        while (!payload.empty() && payload.front() == ' ') payload.remove_prefix(1);
        if (payload == "[DONE]") {
            saw_done = true;
            return;
        }
        auto parsed = server_object(server, payload, "a stream event");
        if (!parsed) {
            stream_error = parsed.error();
            return;
        }
        const auto& object = parsed.value();
        if (const auto* content = choice_content(object, "delta")) {
            response.content.append(content->data(), content->size());
            if (!content->empty()) on_delta(std::string_view(content->data(), content->size()));
        }
        if (const auto* model = object.if_contains("model"); model && model->is_string()) {
            response.model = std::string(model->as_string());
        }
        read_usage(object, response);
    });

    http::BodyChunkHandler on_chunk;
    if (stream) on_chunk = [&lines](std::string_view chunk) { lines.feed(chunk); };
    auto http_response = send_to_model(server, spec_, http_request, cancel, on_chunk);
    if (!http_response) return http_response.error();

    if (stream) {
        lines.finish();
        if (stream_error) return *stream_error;
        if (!saw_done) return bad_response_error(server, "the event stream ended without `data: [DONE]`", "");
    } else {
        auto parsed = server_object(server, http_response->body, "the body");
        if (!parsed) return parsed.error();
        const auto& object = parsed.value();
        if (!has_choices(object)) return bad_response_error(server, "no `choices` in the answer", http_response->body);
        const auto* content = choice_content(object, "message");
        if (!content)
            return bad_response_error(server, "no choices[0].message.content in the answer", http_response->body);
        response.content = std::string(*content);
        if (const auto* model = object.if_contains("model"); model && model->is_string()) {
            response.model = std::string(model->as_string());
        }
        read_usage(object, response);
    }
    finish_response(request, response, started);
    return response;
}

}  // namespace skillhost::llm
