// HTTP/1.1 on Boost.Beast: keep-alive connections read and written on a pool of network threads,
// requests handled on a separate pool (a handler may block, e.g. on a skill call), event streams on
// a thread each. Limits every input: header and body sizes, idle and read timeouts, open streams.
#pragma once

#include "base/error.hpp"
#include "server/http_exchange.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace skillhost::server {

struct HttpServerOptions {
    std::string host = "127.0.0.1";
    std::uint16_t port = 8787;  // 0: any free port (see bound_port())
    unsigned network_threads = 1;
    unsigned handler_threads = 16;
    std::size_t max_body_bytes = 1 << 20;
    std::size_t max_header_bytes = 64 * 1024;
    unsigned max_streams = 64;          // open event streams in all; more: 503 TOO_MANY_STREAMS
    unsigned max_streams_per_user = 8;  // open lasting event streams of one owner (StreamResponse::owner); more: 429
    unsigned max_call_streams_per_user = 32;  // open reply streams (an MCP POST's answer) of one owner; more: 429
    unsigned max_connections = 1024;          // open connections (streams included); more: 503 and closed
    std::chrono::milliseconds stream_write_timeout{
        30000};                             // an event the client does not take this long ends the stream
    std::chrono::seconds idle_timeout{60};  // a connection whose next request does not arrive whole in this long closes
    std::chrono::seconds write_timeout{30};  // a response must be taken by the client within this
};

// Called on a handler thread for every request; may block. Exceptions are caught by the server and
// answered 500 with a correlation id (see `on_unexpected`).
using RequestHandler = std::function<Reply(Request& request)>;
// Turns something unexpected (an exception, or an input the server itself refuses: oversized body,
// malformed request, too many streams) into the response the client gets, with the status the
// error's kind implies.
using ErrorResponder = std::function<Response(const Error& error, unsigned http_version)>;

// Answers the request a handler is running, from any thread, before the handler returns (e.g. a
// skill call answered TIMEOUT at its deadline while the handler's thread is still inside the
// plugin); the handler's own return value is then dropped. Only the first answer counts.
using EarlyResponder = std::function<void(Reply)>;
// The responder of the request the calling handler thread runs; empty outside a handler.
EarlyResponder early_responder();

class HttpServer {
public:
    HttpServer(HttpServerOptions options, RequestHandler handler, ErrorResponder on_error);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    // Binds, listens and starts the threads. BIND_FAILED (address in use, not an address of this
    // machine, permission) with what to do.
    Status start();
    std::uint16_t bound_port() const { return bound_port_; }

    // Stops accepting connections; requests already read are still handled and answered.
    void stop_accepting();
    // Waits until no request is being handled (streams do not count) or `limit` passes. True when idle.
    bool wait_idle(std::chrono::milliseconds limit);
    // Ends every event stream (their writers report stopping()), closes every connection and joins
    // every thread. Call after stop_accepting(); idempotent.
    void stop();

    std::size_t requests_in_flight() const { return in_flight_.load(); }
    std::size_t open_streams() const;
    std::size_t open_connections() const;
    // False when a new lasting event stream of `owner` would be refused (max_streams or
    // max_streams_per_user reached, or stopping).
    bool stream_available(const std::string& owner) const;
    // Reserves the place of one event stream of `owner`, in one decision under one lock: a handler
    // reserves before it starts anything the stream reports on, and puts the slot in its
    // StreamResponse. Refused: nothing is reserved and the admission says why.
    StreamAdmission reserve_stream(const std::string& owner, StreamKind kind);
    // The place of a lasting stream still open (`old`), given to a new stream of the same owner at
    // once: the old stream no longer counts (its producer is to end it). Empty when `old` has already
    // been given back.
    StreamSlot take_over_stream(const std::weak_ptr<StreamSlot::State>& old);

    // The network code's state (http_server.cpp); not for handlers.
    struct Internals;

private:
    friend struct Internals;
    HttpServerOptions options_;
    std::unique_ptr<Internals> internals_;
    std::uint16_t bound_port_ = 0;
    std::atomic<std::size_t> in_flight_{0};
};

}  // namespace skillhost::server
