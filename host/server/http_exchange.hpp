// What an HTTP handler receives and answers: a Beast request, and either a whole response or an
// event stream (Server-Sent Events) that keeps the connection until the stream ends.
#pragma once

#include "base/error.hpp"

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace skillhost::server {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// Writes one client's event stream. Used only on the stream's own thread, blocking.
class EventStreamWriter {
public:
    virtual ~EventStreamWriter() = default;
    // "event: NAME\nid: ID\nretry: MS\ndata: ...\n\n" (each line of `data` gets its own data: field;
    // event, id and retry only when set). False once the client has gone away or the server is
    // shutting down.
    virtual bool send(std::string_view event, std::string_view data, std::string_view id = {},
                      std::chrono::milliseconds retry = {}) = 0;
    // A comment line clients ignore; how a stream notices a client that left.
    virtual bool heartbeat() = 0;
    // True once the server is shutting down: the producer should end its stream promptly.
    virtual bool stopping() const = 0;
    // True once the client has closed its end of the connection. Checked between events, so a stream
    // whose client left stops counting against the stream limits at once, not at the next heartbeat.
    virtual bool client_gone() { return false; }
};

// What a stream is for, for its limits: a lasting stream (GET /mcp, run events, the audit tail) stays
// open as long as its client wants and counts against server.max_streams_per_user; a reply stream
// answers one request (an MCP POST) and ends with its response, and counts against
// server.max_call_streams_per_user instead. Both count against server.max_streams.
enum class StreamKind { lasting, reply };

// A place for one event stream, reserved (HttpServer::reserve_stream) before the request that it
// answers runs: a request admitted with its slot cannot be refused for want of a stream afterwards.
// The place is given back when the last copy of the slot goes (the stream ended, or the reply
// holding it was dropped unsent).
class StreamSlot {
public:
    struct State;  // http_server.cpp
    StreamSlot() = default;
    explicit StreamSlot(std::shared_ptr<State> state) : state_(std::move(state)) {}
    explicit operator bool() const { return state_ != nullptr; }
    // For taking the place over later (HttpServer::take_over_stream) without keeping it.
    std::weak_ptr<State> watch() const { return state_; }
    void reset() { state_.reset(); }

private:
    std::shared_ptr<State> state_;
};

// The answer to a request for a stream's place: the slot, or why not (`error`: TOO_MANY_STREAMS,
// too_many at a per-user limit and unavailable at server.max_streams, or SHUTTING_DOWN; with
// details.retry_after_ms).
struct StreamAdmission {
    StreamSlot slot;
    Error error;
    explicit operator bool() const { return static_cast<bool>(slot); }
};

// The response headers are sent, then `produce` runs on a thread of its own and writes events
// until it returns; then the connection closes. Used for run events, audit tails and MCP streams.
struct StreamResponse {
    http::status status = http::status::ok;
    std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type and Cache-Control
    std::string owner;  // the user the stream is for: counted against server.max_streams_per_user
    std::function<void(EventStreamWriter&)> produce;
    // Reserved by the handler before it started anything; empty: a lasting stream's place is taken
    // when the headers are about to be sent (only for streams whose request changes nothing).
    StreamSlot slot;
};

using Reply = std::variant<Response, StreamResponse>;

}  // namespace skillhost::server
