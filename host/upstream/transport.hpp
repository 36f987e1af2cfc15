// What an MCP session runs over: one JSON-RPC 2.0 connection to a server, whichever way its bytes
// travel (a stdio server's pipes: RpcChannel; Streamable HTTP: HttpChannel). McpClient speaks to
// this interface only, so the choice of transport is made once, where the connection is opened.
// The shared shapes of both (limits, the handlers of what the server sends) are here too.
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace skillhost::upstream {

using Clock = std::chrono::steady_clock;

struct RpcLimits {
    std::size_t max_message_bytes = 4u << 20;
    std::size_t max_pending = 256;
    std::size_t notifications_per_second = 200;
};

// Answers one request of the server's: the result, or an Error (answered as a JSON-RPC error with
// its message; UPSTREAM_ERROR as "method not found"). Call it once, on any thread, while the
// channel lives (whoever keeps it past the handler must end before the channel is destroyed).
using Responder = std::function<void(Result<boost::json::value>)>;
// A request the server sends to the client (roots/list, sampling/createMessage, ...; ping is
// answered by the channel): answer it through `respond`, now or later from another thread.
using ServerRequestHandler =
    std::function<void(std::string_view method, const boost::json::value& params, Responder respond)>;
// A notification the server sends (notifications/tools/list_changed, notifications/message, ...).
using NotificationHandler = std::function<void(std::string_view method, const boost::json::value& params)>;
// Why the connection ended, asked once when the server's output ends (e.g. "exited with status 3").
using EndDescription = std::function<std::string()>;

struct RpcHandlers {
    ServerRequestHandler on_request;
    NotificationHandler on_notification;
    EndDescription describe_end;
};

class Transport {
public:
    virtual ~Transport() = default;

    // Sends one request and waits for its answer: the result, or UPSTREAM_ERROR (the server's
    // JSON-RPC error, details.rpc_code), UPSTREAM_TIMEOUT at `deadline`, UPSTREAM_CANCELLED when
    // `cancelled` turns true, UPSTREAM_CLOSED (details.reason), UPSTREAM_MESSAGE_TOO_LARGE,
    // UPSTREAM_BUSY. A request written is never written again (a transport may name its one
    // exception); one that times out or is cancelled is cancelled upstream (notifications/cancelled).
    virtual Result<boost::json::value> call(std::string_view method, boost::json::object params,
                                            Clock::time_point deadline,
                                            const std::atomic<bool>* cancelled = nullptr) = 0;
    // Sends a notification; false when the connection is closed or the server did not take it.
    virtual bool notify(std::string_view method, boost::json::object params, Clock::time_point deadline) = 0;

    // Ends the connection: every call waiting fails with UPSTREAM_CLOSED and `reason`.
    virtual void close(const std::string& reason) = 0;
    virtual bool closed() const = 0;
    virtual std::string closed_reason() const = 0;
};

}  // namespace skillhost::upstream
