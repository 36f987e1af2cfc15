#include "llm/ollama_backend.hpp"

#include "net/http_client.hpp"
#include "llm/line_splitter.hpp"
#include "net/url.hpp"
#include "llm/remote_errors.hpp"

#include <boost/json.hpp>

namespace skillhost::llm {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

RemoteServer ollama_server(const ModelSpec& spec) {
    return RemoteServer{"Ollama",
                        spec.base_url,
                        spec.model,
                        "start it with `ollama serve`",
                        "run `ollama pull " + spec.model + "` (or fix the model name in models.yaml)",
                        {}};
}

// Reads token counts and the model name from a final (done) message.
void read_usage(const json::object& message, ChatResponse& response) {
    if (const auto* count = message.if_contains("prompt_eval_count"); count && count->is_int64()) {
        response.prompt_tokens = static_cast<int>(count->as_int64());
    }
    if (const auto* count = message.if_contains("eval_count"); count && count->is_int64()) {
        response.completion_tokens = static_cast<int>(count->as_int64());
    }
    if (const auto* model = message.if_contains("model"); model && model->is_string()) {
        response.model = std::string(model->as_string());
    }
}

const json::string* message_content(const json::object& object) {
    const auto* message = object.if_contains("message");
    if (!message || !message->is_object()) return nullptr;
    const auto* content = message->as_object().if_contains("content");
    return content && content->is_string() ? &content->as_string() : nullptr;
}

}  // namespace

OllamaBackend::OllamaBackend(ModelSpec spec) : spec_(std::move(spec)) {}

std::string OllamaBackend::request_body(const ChatRequest& request, bool stream) const {
    json::object body;
    body["model"] = spec_.model;
    json::array messages;
    for (const auto& message : request.messages) {
        messages.push_back(json::object{{"role", message.role}, {"content", message.content}});
    }
    body["messages"] = std::move(messages);
    body["stream"] = stream;
    if (request.json_schema) body["format"] = *request.json_schema;
    json::object options;
    if (auto t = request.temperature ? request.temperature : spec_.options.temperature) options["temperature"] = *t;
    if (spec_.options.context_size) options["num_ctx"] = *spec_.options.context_size;
    if (auto m = request.max_tokens ? request.max_tokens : spec_.options.max_tokens) options["num_predict"] = *m;
    if (!options.empty()) body["options"] = std::move(options);
    return json::serialize(body);
}

Result<ChatResponse> OllamaBackend::chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                                         const StreamDeltaHandler& on_delta) {
    const RemoteServer server = ollama_server(spec_);
    const auto started = Clock::now();
    const bool stream = static_cast<bool>(on_delta);

    http::HttpRequest http_request;
    http_request.url = http::join_url(spec_.base_url, "/api/chat");
    http_request.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    http_request.body = request_body(request, stream);

    ChatResponse response;
    response.backend = "ollama";
    response.model = spec_.model;
    std::optional<Error> stream_error;
    bool saw_done = false;

    LineSplitter lines([&](std::string_view line) {
        if (stream_error || line.empty()) return;
        auto parsed = server_object(server, line, "a stream line");
        if (!parsed) {
            stream_error = parsed.error();
            return;
        }
        const auto& object = parsed.value();
        if (const auto* content = message_content(object)) {
            response.content.append(content->data(), content->size());
            if (!content->empty()) on_delta(std::string_view(content->data(), content->size()));
        }
        if (const auto* done = object.if_contains("done"); done && done->is_bool() && done->as_bool()) {
            saw_done = true;
            read_usage(object, response);
        }
    });

    http::BodyChunkHandler on_chunk;
    if (stream) on_chunk = [&lines](std::string_view chunk) { lines.feed(chunk); };
    auto http_response = send_to_model(server, spec_, http_request, cancel, on_chunk);
    if (!http_response) return http_response.error();

    if (stream) {
        lines.finish();
        if (stream_error) return *stream_error;
        if (!saw_done) return bad_response_error(server, "the stream ended without a final `done` message", "");
    } else {
        auto object = server_object(server, http_response->body, "the body");
        if (!object) return object.error();
        const auto* content = message_content(object.value());
        if (!content) return bad_response_error(server, "no message.content in the answer", http_response->body);
        response.content = std::string(*content);
        read_usage(object.value(), response);
    }
    finish_response(request, response, started);
    return response;
}

}  // namespace skillhost::llm
