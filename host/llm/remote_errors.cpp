#include "llm/remote_errors.hpp"
#include "llm/error_codes.hpp"
#include "net/error_codes.hpp"

#include <boost/json/parse.hpp>

namespace skillhost::llm {
namespace {

std::string excerpt(std::string_view text, std::size_t limit = 300) {
    std::string out(text.substr(0, limit));
    if (text.size() > limit) out += "…";
    return out;
}

Error make(const ErrorCode& code, std::string message, const RemoteServer& server) {
    Error error{code, std::move(message)};
    error.details["url"] = server.base_url;
    error.details["model"] = server.model;
    return error;
}

}  // namespace

std::string server_error_text(std::string_view body) {
    boost::system::error_code ec;
    const auto parsed = boost::json::parse(body, ec);
    if (!ec && parsed.is_object()) {
        const auto& object = parsed.as_object();
        if (const auto* error = object.if_contains("error")) {
            if (error->is_string()) return std::string(error->as_string());
            if (error->is_object()) {
                if (const auto* message = error->as_object().if_contains("message"); message && message->is_string()) {
                    return std::string(message->as_string());
                }
            }
        }
        if (const auto* message = object.if_contains("message"); message && message->is_string()) {
            return std::string(message->as_string());
        }
    }
    return excerpt(body);
}

Error remote_transport_error(const RemoteServer& server, const ModelSpec& spec, const Error& http_error) {
    const auto* phase = http_error.details.if_contains("phase");
    const bool read_phase = phase && phase->is_string() && phase->as_string() == "read";
    const bool total_phase = phase && phase->is_string() && phase->as_string() == "total";
    Error error;
    if (http_error.is(errors::kHttpCancelled)) {
        error = make(errors::kLlmCancelled, "the request to " + server.label + " (" + server.model + ") was cancelled",
                     server);
    } else if (http_error.is(errors::kHttpTimeout) && total_phase) {
        error =
            make(errors::kLlmTimeout,
                 "model " + server.model + " at " + server.base_url + " did not finish its answer within " +
                     std::to_string(spec.total_timeout.count()) + " ms (the whole call's deadline) — raise models." +
                     spec.name + ".timeouts.total_ms in models.yaml, lower max_tokens or use a faster model",
                 server);
    } else if (http_error.is(errors::kHttpTimeout) && read_phase) {
        error = make(errors::kLlmTimeout,
                     "model " + server.model + " at " + server.base_url + " did not answer within " +
                         std::to_string(spec.read_timeout.count()) +
                         " ms — the model may still be loading or be too slow for this machine; raise "
                         "models." +
                         spec.name + ".timeouts.read_ms in models.yaml or use a smaller model",
                     server);
    } else if (http_error.is(errors::kHttpTimeout)) {
        error = make(errors::kLlmTimeout,
                     server.label + " at " + server.base_url + " did not accept a connection within " +
                         std::to_string(spec.connect_timeout.count()) + " ms — " + server.start_hint +
                         ", check base_url, or raise models." + spec.name + ".timeouts.connect_ms",
                     server);
    } else if (http_error.is(errors::kHttpTlsError)) {
        error =
            make(errors::kLlmUnreachable, server.label + " at " + server.base_url + ": " + http_error.message, server);
    } else if (http_error.is(errors::kHttpResponseTooLarge)) {
        error = make(errors::kLlmResponseTooLarge,
                     "model " + server.model + " at " + server.base_url +
                         " sent more than the host reads from one answer (" + http_error.message +
                         ") — lower max_tokens, or check that base_url points at " + server.label,
                     server);
    } else if (http_error.is(errors::kHttpProtocolError)) {
        error = make(errors::kLlmBadResponse,
                     server.label + " at " + server.base_url + " sent a broken response: " + http_error.message +
                         " — check that base_url points at " + server.label,
                     server);
    } else {
        error = make(errors::kLlmUnreachable,
                     server.label + " is not reachable at " + server.base_url + " — " + server.start_hint +
                         " or change models.yaml",
                     server);
    }
    for (const auto& [key, value] : http_error.details) error.details[key] = value;
    error.details["cause"] = http_error.message;
    return error;
}

Error remote_status_error(const RemoteServer& server, const http::HttpResponse& response) {
    const std::string text = server_error_text(response.body);
    Error error;
    if (response.status == 404) {
        error = make(errors::kLlmModelNotFound,
                     "model " + server.model + " is not available at " + server.base_url + " (" + text + ") — " +
                         server.missing_model_hint,
                     server);
    } else if (response.status == 429) {
        error = make(errors::kLlmRateLimited,
                     server.label + " at " + server.base_url + " is rate-limiting requests (HTTP 429) after " +
                         std::to_string(response.attempts) +
                         " attempts — wait and try again, or raise `retries` for this model in models.yaml",
                     server);
    } else if (response.status == 401 || response.status == 403) {
        const std::string key_hint =
            server.api_key_env.empty()
                ? "set api_key_env for this model in models.yaml to the environment variable holding the key"
                : "check the key in the environment variable " + server.api_key_env;
        error = make(errors::kLlmHttpError,
                     server.label + " at " + server.base_url + " refused the credentials (HTTP " +
                         std::to_string(response.status) + ": " + text + ") — " + key_hint,
                     server);
    } else if (response.status == 503) {
        error = make(errors::kLlmHttpError,
                     server.label + " at " + server.base_url + " is unavailable (HTTP 503: " + text + ") after " +
                         std::to_string(response.attempts) +
                         " attempts — it may be overloaded or loading the model; "
                         "try again shortly",
                     server);
    } else {
        error = make(errors::kLlmHttpError,
                     server.label + " at " + server.base_url + " answered HTTP " + std::to_string(response.status) +
                         ": " + text + " — check the server's log for the cause",
                     server);
    }
    error.details["status"] = response.status;
    error.details["attempts"] = response.attempts;
    error.details["server_error"] = text;
    return error;
}

Error bad_response_error(const RemoteServer& server, const std::string& what, std::string_view body) {
    Error error = make(errors::kLlmBadResponse,
                       server.label + " at " + server.base_url + " sent a response skillhost cannot use (" + what +
                           ") — check that base_url points at " + server.label + " and that the server is up to date",
                       server);
    error.details["body"] = excerpt(body);
    return error;
}

http::HttpClientOptions client_options(const ModelSpec& spec, const std::atomic<bool>* cancel) {
    http::HttpClientOptions options;
    options.connect_timeout = spec.connect_timeout;
    options.read_timeout = spec.read_timeout;
    options.total_timeout = spec.total_timeout;
    options.max_retries = spec.retries;
    options.backoff_initial = spec.backoff_initial;
    options.backoff_max = std::max(spec.backoff_initial, std::chrono::milliseconds(4000));
    options.retry_after_cap = spec.retry_after_cap;
    options.cancel = cancel;
    return options;
}

Result<http::HttpResponse> send_to_model(const RemoteServer& server, const ModelSpec& spec,
                                         const http::HttpRequest& request, const std::atomic<bool>* cancel,
                                         const http::BodyChunkHandler& on_chunk) {
    auto response = http::send_http_request(request, client_options(spec, cancel), on_chunk);
    if (!response) return remote_transport_error(server, spec, response.error());
    if (response->status / 100 != 2) return remote_status_error(server, *response);
    return response;
}

Result<boost::json::object> server_object(const RemoteServer& server, std::string_view text, std::string_view what) {
    boost::json::error_code ec;
    auto parsed = boost::json::parse(text, ec);
    if (ec || !parsed.is_object()) return bad_response_error(server, std::string(what) + " is not a JSON object", text);
    if (parsed.as_object().contains("error")) {
        Error error = bad_response_error(server, "the server reported: " + server_error_text(text), text);
        error.recode(errors::kLlmHttpError);
        return error;
    }
    return std::move(parsed.as_object());
}

void finish_response(const ChatRequest& request, ChatResponse& response,
                     std::chrono::steady_clock::time_point started) {
    if (response.prompt_tokens == 0 && response.completion_tokens == 0) {
        response.prompt_tokens = estimate_prompt_tokens(request);
        response.completion_tokens = estimate_tokens(response.content);
        response.tokens_estimated = true;
    }
    response.latency =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
}

}  // namespace skillhost::llm
