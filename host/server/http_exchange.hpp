// What an HTTP handler receives and answers: a Beast request, and either a whole response or an
// event stream (Server-Sent Events) that keeps the connection until the stream ends.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <functional>
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

// The response headers are sent, then `produce` runs on a thread of its own and writes events
// until it returns; then the connection closes. Used for run events, audit tails and MCP streams.
struct StreamResponse {
    http::status status = http::status::ok;
    std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type and Cache-Control
    std::string owner;  // the user the stream is for: counted against server.max_streams_per_user
    std::function<void(EventStreamWriter&)> produce;
};

using Reply = std::variant<Response, StreamResponse>;

}  // namespace skillhost::server
