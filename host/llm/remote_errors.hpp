// Turns HTTP-level failures of a model server into LLM_* errors whose messages say what to do.
#pragma once

#include "base/error.hpp"
#include "llm/http_client.hpp"
#include "llm/model_config.hpp"

#include <string>

namespace skillhost::llm {

// How a remote backend describes itself in messages.
struct RemoteServer {
    std::string label;       // "Ollama", "the OpenAI-compatible server"
    std::string base_url;
    std::string model;
    std::string start_hint;  // "start it with `ollama serve`"
    std::string missing_model_hint;  // "run `ollama pull MODEL`"
    std::string api_key_env;
};

// HTTP_UNREACHABLE/TIMEOUT/CANCELLED/TLS/PROTOCOL → LLM_UNREACHABLE/TIMEOUT/CANCELLED/BAD_RESPONSE.
Error remote_transport_error(const RemoteServer& server, const ModelSpec& spec, const Error& http_error);

// A non-2xx answer → LLM_MODEL_NOT_FOUND (404), LLM_RATE_LIMITED (429), LLM_HTTP_ERROR (others).
Error remote_status_error(const RemoteServer& server, const http::HttpResponse& response);

// A 2xx answer we cannot use (not JSON, missing fields).
Error bad_response_error(const RemoteServer& server, const std::string& what, std::string_view body);

// The error text a server put in its body ({"error":"..."} or {"error":{"message":"..."}}), or the
// start of the raw body.
std::string server_error_text(std::string_view body);

// Options for the HTTP client from a model's timeouts and retries.
http::HttpClientOptions client_options(const ModelSpec& spec, const std::atomic<bool>* cancel);

}  // namespace skillhost::llm
