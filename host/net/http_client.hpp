// A small blocking HTTP/1.1 client on Boost.Beast for talking to model servers (and, later, any
// other HTTP service the host calls). TLS via OpenSSL with SNI and peer verification against the
// system CAs. Timeouts, bounded retries and cancellation are built in because a model server that
// is down, overloaded or stalled must produce a clear error, never a hang.
#pragma once

#include "base/error.hpp"
#include "net/bounded_lookup.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skillhost::http {

struct HttpRequest {
    std::string method = "POST";
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
};

struct HttpResponse {
    int status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
    // The whole body, except for a successful (2xx) response read through a BodyChunkHandler.
    std::string body;
    int attempts = 1;

    // Case-insensitive header lookup; empty when absent.
    std::string header(std::string_view name) const;
};

struct HttpClientOptions {
    std::chrono::milliseconds connect_timeout{5000};  // resolve + TCP connect + TLS handshake
    // Longest wait for the response headers and then for each further piece of the body, so a
    // stalled stream times out even when the whole response may take much longer.
    std::chrono::milliseconds read_timeout{120000};
    // The whole request, every attempt and backoff included: a server that keeps sending slowly
    // (or answers in pieces forever) still ends with HTTP_TIMEOUT (details.phase total). 0: none.
    std::chrono::milliseconds total_timeout{0};
    int max_retries = 2;  // extra attempts after connection failures and 429/503 answers
    std::chrono::milliseconds backoff_initial{250};
    std::chrono::milliseconds backoff_max{4000};
    std::chrono::milliseconds retry_after_cap{10000};  // a server's Retry-After is honoured up to this
    // The most body bytes read from one response, streamed or not: a model server that never stops
    // sending must not fill the host's memory. More is HTTP_RESPONSE_TOO_LARGE.
    std::uint64_t max_response_bytes = std::uint64_t{32} << 20;
    const std::atomic<bool>* cancel = nullptr;  // polled; true aborts the request promptly
    // Polled with `cancel`, for a caller with reasons of its own to stop (a stream that has said
    // what it was read for, a connection being closed): true aborts the request as `cancel` does.
    std::function<bool()> cancel_when;
    // Called once the status and headers are read, before any of the body (whose handler may need
    // them: a stream's content type, a session header).
    std::function<void(const HttpResponse& head)> on_headers;
    std::chrono::milliseconds cancel_poll_interval{20};
    // How host names are looked up (the system's resolver when empty); tests replace it with one
    // that never answers. The lookup is bounded by connect_timeout either way.
    NameResolver resolver;
};

// Receives each piece of a successful response body as it arrives (already de-chunked).
using BodyChunkHandler = std::function<void(std::string_view chunk)>;

// Sends the request and returns the final response (any status, including 4xx/5xx after the
// retries are used up). Transport failures are Errors with codes HTTP_BAD_URL, HTTP_UNREACHABLE,
// HTTP_TIMEOUT (details.phase: connect|read|total), HTTP_CANCELLED, HTTP_TLS_ERROR, HTTP_PROTOCOL_ERROR,
// HTTP_RESPONSE_TOO_LARGE (details.limit_bytes); details always carry the url and the number of
// attempts.
Result<HttpResponse> send_http_request(const HttpRequest& request, const HttpClientOptions& options,
                                       const BodyChunkHandler& on_body_chunk = {});

}  // namespace skillhost::http
