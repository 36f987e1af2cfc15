// Talking to a model server: one exchange, and HTTP-level failures turned into LLM_* errors whose
// messages say what to do. Shared by the ollama and openai backends.
#pragma once

#include "base/error.hpp"
#include "llm/chat_types.hpp"
#include "net/http_client.hpp"
#include "llm/model_config.hpp"

#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>

namespace skillhost::llm {

// How a remote backend describes itself in messages.
struct RemoteServer {
    std::string label;  // "Ollama", "the OpenAI-compatible server"
    std::string base_url;
    std::string model;
    std::string start_hint;          // "start it with `ollama serve`"
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

// Sends the request with the model's options; transport failures and non-2xx answers become the
// LLM_* errors above. `on_chunk` (may be empty) receives a streamed 2xx body.
Result<http::HttpResponse> send_to_model(const RemoteServer& server, const ModelSpec& spec,
                                         const http::HttpRequest& request, const std::atomic<bool>* cancel,
                                         const http::BodyChunkHandler& on_chunk);

// One JSON object from the server (a body, or one event of a stream; `what` names it in
// messages). Not an object: LLM_BAD_RESPONSE; an object with an "error" field: LLM_HTTP_ERROR with
// the server's message.
Result<boost::json::object> server_object(const RemoteServer& server, std::string_view text, std::string_view what);

// The last touches of every remote answer: token counts estimated (and marked so) when the server
// reported none, and the latency since `started`.
void finish_response(const ChatRequest& request, ChatResponse& response, std::chrono::steady_clock::time_point started);

}  // namespace skillhost::llm
