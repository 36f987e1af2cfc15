#include "server/http_server.hpp"
#include "server/error_codes.hpp"
#include "base/owned_threads.hpp"
#include "base/worker_pool.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <map>
#include <optional>
#include <poll.h>
#include <sstream>
#include <sys/socket.h>
#include <utility>

namespace skillhost::server {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

namespace {

constexpr std::int64_t kStreamRetryAfterMs = 1000;

// Counts the places of event streams, by kind and owner. Shared with every slot it hands out, so a
// slot given back after the server has gone (a reply dropped unsent at shutdown) still has somewhere
// to go.
struct StreamLedger {
    StreamLedger(unsigned total_limit, unsigned lasting_limit, unsigned reply_limit)
        : max_streams(total_limit), max_lasting_per_user(lasting_limit), max_reply_per_user(reply_limit) {}
    const unsigned max_streams;
    const unsigned max_lasting_per_user;
    const unsigned max_reply_per_user;
    mutable std::mutex mutex;
    std::size_t total = 0;
    std::map<std::string, unsigned> lasting_by_owner;
    std::map<std::string, unsigned> reply_by_owner;

    std::map<std::string, unsigned>& counts(StreamKind kind) {
        return kind == StreamKind::lasting ? lasting_by_owner : reply_by_owner;
    }
    unsigned count_of(const std::map<std::string, unsigned>& counts, const std::string& owner) const {
        const auto it = counts.find(owner);
        return it == counts.end() ? 0 : it->second;
    }
    void take(const std::string& owner, StreamKind kind) {
        ++total;
        ++counts(kind)[owner];
    }
    void give_back(const std::string& owner, StreamKind kind) {
        --total;
        auto& by_owner = counts(kind);
        if (auto it = by_owner.find(owner); it != by_owner.end() && --it->second == 0) by_owner.erase(it);
    }
};

}  // namespace

struct StreamSlot::State {
    std::shared_ptr<StreamLedger> ledger;
    std::string owner;
    StreamKind kind = StreamKind::lasting;
    bool counted = true;  // guarded by ledger->mutex; false once taken over
    State(std::shared_ptr<StreamLedger> l, std::string o, StreamKind k)
        : ledger(std::move(l)), owner(std::move(o)), kind(k) {}
    ~State() {
        std::lock_guard lock(ledger->mutex);
        if (counted) ledger->give_back(owner, kind);
    }
    State(const State&) = delete;
    State& operator=(const State&) = delete;
};

struct HttpServer::Internals {
    HttpServer& server;
    const HttpServerOptions options;
    RequestHandler handler;
    ErrorResponder on_error;

    // Declared before the io_context: sessions it still holds when destroyed count themselves out.
    std::atomic<std::size_t> connections{0};  // open HTTP sessions (streams are counted in `streams`)

    net::io_context ioc;
    std::optional<net::executor_work_guard<net::io_context::executor_type>> work{ioc.get_executor()};
    tcp::acceptor acceptor{ioc};
    // After a failed accept (out of descriptors or memory) the next one waits: retrying at once
    // would fail the same way, spinning a core and flooding the log.
    net::steady_timer accept_pause{ioc};
    std::chrono::milliseconds accept_backoff{0};
    std::size_t accept_failures = 0;   // in the current episode; used only by the accept chain
    std::size_t refused_over_cap = 0;  // connections refused since the last one accepted
    // Request handlers run on this pool: it starts workers as requests need them, up to
    // options.handler_threads, and keeps two when idle. A handler may outlive its answer (inside a
    // skill past its deadline), so stop() waits for `handlers_running` to reach zero.
    WorkerPool handlers;
    std::mutex handlers_mutex;
    std::condition_variable handlers_changed;
    std::size_t handlers_running = 0;
    std::vector<std::thread> network_threads;
    std::atomic<bool> stopping{false};
    bool stopped = false;

    std::mutex idle_mutex;
    std::condition_variable idle_changed;

    mutable std::mutex streams_mutex;
    std::condition_variable streams_changed;
    std::set<int> stream_fds;     // open streams' sockets, shut down by stop()
    std::size_t streams = 0;      // stream threads still running
    OwnedThreads stream_threads;  // a thread per open stream; stop() joins them
    // The streams' places (reserved or open), by kind and owner.
    const std::shared_ptr<StreamLedger> ledger;

    Internals(HttpServer& s, HttpServerOptions o, RequestHandler h, ErrorResponder e)
        : server(s),
          options(std::move(o)),
          handler(std::move(h)),
          on_error(std::move(e)),
          handlers(
              WorkerPoolOptions{2, options.handler_threads, std::chrono::milliseconds(30000), options.max_connections}),
          ledger(std::make_shared<StreamLedger>(options.max_streams, options.max_streams_per_user,
                                                options.max_call_streams_per_user)) {}

    void request_started() { server.in_flight_.fetch_add(1); }

    // Runs `work` on a handler thread. When it cannot, says why (empty: it will run): every
    // handler is busy and as many requests as the server takes connections already wait, or no
    // thread can be started.
    std::string run_handler(std::function<void()> work) {
        {
            std::lock_guard lock(handlers_mutex);
            ++handlers_running;
        }
        auto counted = [this, work = std::move(work)]() mutable {
            // Counted out only after the work and everything it captured (the connection's session,
            // which counts itself out of this server) are gone: stop() may destroy the server then.
            struct CountedOut {
                Internals& in;
                ~CountedOut() { in.handler_returned(); }
            } out{*this};
            auto running = std::exchange(work, nullptr);  // destroyed before `out`
            running();
        };
        std::string refused;
        try {
            if (!handlers.submit(std::make_shared<FunctionJob>(std::move(counted))))
                refused = "every request handler is busy and " + std::to_string(options.max_connections) +
                          " requests already wait (server.handler_threads, server.max_connections); retry shortly";
        } catch (const std::system_error& e) {
            spdlog::error("serve: cannot start a request handler thread: {}", e.what());
            refused = std::string("the server cannot start a thread for the request (") + e.what() +
                      "); retry shortly, and check the process and memory limits of the daemon";
        }
        if (!refused.empty()) handler_returned();
        return refused;
    }
    void handler_returned() {
        std::lock_guard lock(handlers_mutex);
        if (--handlers_running == 0) handlers_changed.notify_all();
    }
    void request_done() {
        if (server.in_flight_.fetch_sub(1) == 1) {
            std::lock_guard lock(idle_mutex);
            idle_changed.notify_all();
        }
    }

    // Runs the handler, catching everything: the client always gets an answer.
    Reply handle(Request& request) {
        try {
            return handler(request);
        } catch (const std::exception& e) {
            return on_error(Error{errors::kInternal, e.what()}, request.version());
        } catch (...) {
            return on_error(Error{errors::kInternal, "unknown exception"}, request.version());
        }
    }

    void accept();
    void accepted(tcp::socket socket);
    void refuse_connection(tcp::socket& socket);
    std::size_t open_connections() const;
    void start_stream(tcp::socket socket, StreamResponse stream, unsigned version);
    StreamAdmission reserve_stream(const std::string& owner, StreamKind kind);
};

namespace {

// The responder of the request this handler thread is running, for early_responder().
thread_local const EarlyResponder* current_responder = nullptr;

std::string sse_text(std::string_view event, std::string_view data, std::string_view id,
                     std::chrono::milliseconds retry) {
    std::string out;
    out.reserve(data.size() + event.size() + 32);
    if (!event.empty()) out.append("event: ").append(event).append("\n");
    if (!id.empty()) out.append("id: ").append(id).append("\n");
    if (retry.count() > 0) out.append("retry: ").append(std::to_string(retry.count())).append("\n");
    std::size_t start = 0;
    while (true) {
        const auto end = data.find('\n', start);
        out.append("data: ")
            .append(data.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start))
            .append("\n");
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    out.append("\n");
    return out;
}

class SocketEventStream final : public EventStreamWriter {
public:
    SocketEventStream(tcp::socket& socket, const std::atomic<bool>& stopping, std::chrono::milliseconds timeout)
        : socket_(socket), stopping_(stopping), timeout_(timeout) {}
    bool send(std::string_view event, std::string_view data, std::string_view id,
              std::chrono::milliseconds retry) override {
        return write(sse_text(event, data, id, retry));
    }
    bool heartbeat() override { return write(": keep-alive\n\n"); }
    bool stopping() const override { return stopping_.load(); }
    bool client_gone() override {
        if (failed_) return true;
        pollfd p{socket_.native_handle(), POLLRDHUP, 0};
        if (::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) failed_ = true;
        return failed_;
    }
    // Non-blocking sends with a deadline: a client that stops reading (its window full) must not
    // hold the stream's thread forever.
    bool write(const std::string& text) {
        if (failed_ || stopping_.load()) return false;
        const int fd = socket_.native_handle();
        const auto deadline = std::chrono::steady_clock::now() + timeout_;
        std::size_t done = 0;
        while (done < text.size()) {
            const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) {
                done += static_cast<std::size_t>(n);
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                const auto left =
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
                if (left.count() <= 0) {
                    spdlog::info(
                        "http: an event stream's client took no data for {} ms (server.stream_write_timeout_ms); "
                        "closing the stream",
                        timeout_.count());
                    failed_ = true;
                    break;
                }
                pollfd p{fd, POLLOUT, 0};
                (void)::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
                continue;
            }
            failed_ = true;  // the client went away (EPIPE, ECONNRESET) or the server shut the socket
            break;
        }
        return !failed_;
    }

private:
    tcp::socket& socket_;
    const std::atomic<bool>& stopping_;
    const std::chrono::milliseconds timeout_;
    bool failed_ = false;
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
public:
    HttpSession(tcp::socket socket, HttpServer::Internals& in) : stream_(std::move(socket)), in_(in) {
        in_.connections.fetch_add(1);
    }
    ~HttpSession() { in_.connections.fetch_sub(1); }
    HttpSession(const HttpSession&) = delete;
    HttpSession& operator=(const HttpSession&) = delete;

    void start() {
        net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read(); });
    }

private:
    void read() {
        parser_.emplace();
        parser_->body_limit(in_.options.max_body_bytes);
        parser_->header_limit(static_cast<std::uint32_t>(in_.options.max_header_bytes));
        stream_.expires_after(in_.options.idle_timeout);
        http::async_read(stream_, buffer_, *parser_,
                         [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }

    void on_read(beast::error_code ec) {
        if (ec == http::error::end_of_stream || ec == net::error::eof || ec == beast::error::timeout ||
            ec == net::error::operation_aborted || ec == net::error::connection_reset) {
            return close();
        }
        if (ec) {
            // The client sent something we will not handle; say why, then close.
            const unsigned version = parser_->get().version() ? parser_->get().version() : 11;
            Error refused{errors::kMalformedRequest, "the request is not valid HTTP/1.1: " + ec.message()};
            if (ec == http::error::body_limit) {
                refused = Error{errors::kBodyTooLarge, "the request body is larger than the server accepts (" +
                                                           std::to_string(in_.options.max_body_bytes) +
                                                           " bytes; server.max_body_bytes)"};
            } else if (ec == http::error::header_limit) {
                refused = Error{errors::kHeadersTooLarge, "the request headers are larger than " +
                                                              std::to_string(in_.options.max_header_bytes) + " bytes"};
            }
            Response response = in_.on_error(refused, version);
            response.keep_alive(false);
            in_.request_started();
            return write(std::move(response), true);
        }
        stream_.expires_never();
        in_.request_started();
        auto request = std::make_shared<Request>(parser_->release());
        const std::string refused = in_.run_handler([self = shared_from_this(), request] {
            // The handler's return value answers, unless the handler answered earlier through
            // early_responder() (from another thread, while it is still busy): whichever is first.
            auto answered = std::make_shared<std::atomic<bool>>(false);
            const unsigned version = request->version();
            const bool keep_alive = request->keep_alive();
            EarlyResponder respond = [self, answered, keep_alive, version](Reply reply) {
                if (answered->exchange(true)) return;
                const bool close = !keep_alive || self->in_.stopping.load();
                net::post(self->stream_.get_executor(), [self, reply = std::move(reply), close, version]() mutable {
                    self->answer(std::move(reply), close, version);
                });
            };
            current_responder = &respond;
            Reply reply = self->in_.handle(*request);
            current_responder = nullptr;
            respond(std::move(reply));
        });
        if (!refused.empty()) {
            Response busy = in_.on_error(Error{errors::kTooManyConnections, refused}, request->version());
            busy.keep_alive(false);
            write(std::move(busy), true);
        }
    }

    void answer(Reply reply, bool close_after, unsigned version) {
        if (auto* response = std::get_if<Response>(&reply)) {
            response->version(version);
            response->keep_alive(!close_after);
            response->prepare_payload();
            return write(std::move(*response), close_after);
        }
        auto& stream = std::get<StreamResponse>(reply);
        in_.request_done();
        in_.start_stream(stream_.release_socket(), std::move(stream), version);
    }

    void write(Response response, bool close_after) {
        auto shared = std::make_shared<Response>(std::move(response));
        shared->prepare_payload();
        stream_.expires_after(in_.options.write_timeout);
        http::async_write(stream_, *shared,
                          [self = shared_from_this(), shared, close_after](beast::error_code ec, std::size_t) {
                              self->in_.request_done();
                              if (ec || close_after) return self->close();
                              self->read();
                          });
    }

    void close() {
        beast::error_code ec;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
        stream_.socket().close(ec);
    }

    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    HttpServer::Internals& in_;
};

}  // namespace

EarlyResponder early_responder() {
    return current_responder ? *current_responder : EarlyResponder{};
}

std::size_t HttpServer::Internals::open_connections() const {
    std::lock_guard lock(streams_mutex);
    return connections.load() + streams;
}

void HttpServer::Internals::accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
        if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
        if (ec) {
            // Typically EMFILE/ENFILE: the pending connection stays in the backlog until a
            // descriptor frees up. One warning per episode, then pause and retry with backoff.
            if (accept_failures++ == 0) {
                spdlog::warn(
                    "http: accept failed: {}; pausing new connections and retrying (raise the open-file "
                    "limit or lower server.max_connections)",
                    ec.message());
            }
            accept_backoff =
                std::min(std::chrono::milliseconds(1000), std::max(std::chrono::milliseconds(10), accept_backoff * 2));
            accept_pause.expires_after(accept_backoff);
            accept_pause.async_wait([this](beast::error_code wait_ec) {
                if (!wait_ec && acceptor.is_open()) accept();
            });
            return;
        }
        if (accept_failures > 0) {
            spdlog::info("http: accepting connections again after {} failed accept(s)", accept_failures);
            accept_failures = 0;
            accept_backoff = std::chrono::milliseconds(0);
        }
        accepted(std::move(socket));
        accept();
    });
}

void HttpServer::Internals::accepted(tcp::socket socket) {
    if (open_connections() >= options.max_connections) return refuse_connection(socket);
    if (refused_over_cap > 0) {
        spdlog::info("http: {} connection(s) were refused at server.max_connections = {}", refused_over_cap,
                     options.max_connections);
        refused_over_cap = 0;
    }
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    std::make_shared<HttpSession>(std::move(socket), *this)->start();
}

// Over the cap: a short 503 the client can read, written without waiting (it fits the socket
// buffer), then the connection closes. Nothing is read, so the refusal costs no handler thread.
void HttpServer::Internals::refuse_connection(tcp::socket& socket) {
    if (refused_over_cap++ == 0) {
        spdlog::warn("http: {} connections are open (server.max_connections); refusing new ones",
                     options.max_connections);
    }
    Response busy = on_error(Error{errors::kTooManyConnections,
                                   "the server has " + std::to_string(options.max_connections) +
                                       " open connections (server.max_connections); close idle ones or try later"},
                             11);
    busy.keep_alive(false);
    busy.prepare_payload();
    std::ostringstream text;
    text << busy;
    const std::string bytes = text.str();
    (void)::send(socket.native_handle(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    boost::system::error_code ec;
    socket.shutdown(tcp::socket::shutdown_both, ec);
    socket.close(ec);
}

StreamAdmission HttpServer::Internals::reserve_stream(const std::string& owner, StreamKind kind) {
    StreamAdmission refused;
    std::lock_guard lock(ledger->mutex);
    if (stopping.load()) {
        refused.error = Error{errors::kShuttingDown, "the server is shutting down", {}, {}};
        return refused;
    }
    if (ledger->total >= ledger->max_streams) {
        refused.error =
            Error{errors::kTooManyStreamsOnServer,
                  "too many event streams are open (server.max_streams = " + std::to_string(ledger->max_streams) +
                      "); close one or try later",
                  {},
                  {"retry later, or send MCP requests with Accept: application/json only"}};
        refused.error.details["retry_after_ms"] = kStreamRetryAfterMs;
        return refused;
    }
    const unsigned mine = ledger->count_of(ledger->counts(kind), owner);
    if (kind == StreamKind::lasting && mine >= ledger->max_lasting_per_user) {
        refused.error = Error{errors::kTooManyStreams,
                              "user " + owner + " has " + std::to_string(mine) +
                                  " event streams open (server.max_streams_per_user); close one or try later",
                              {},
                              {"close streams no longer read, or retry later"}};
        refused.error.details["retry_after_ms"] = kStreamRetryAfterMs;
        return refused;
    }
    if (kind == StreamKind::reply && mine >= ledger->max_reply_per_user) {
        refused.error = Error{errors::kTooManyStreams,
                              "user " + owner + " has " + std::to_string(mine) +
                                  " requests answered as event streams in flight "
                                  "(server.max_call_streams_per_user); wait for one to finish",
                              {},
                              {"retry later, or send the request with Accept: application/json only"}};
        refused.error.details["retry_after_ms"] = kStreamRetryAfterMs;
        return refused;
    }
    ledger->take(owner, kind);
    return StreamAdmission{StreamSlot(std::make_shared<StreamSlot::State>(ledger, owner, kind)), {}};
}

void HttpServer::Internals::start_stream(tcp::socket socket, StreamResponse stream, unsigned version) {
    const auto refuse = [&](const Error& error) {
        Response busy = on_error(error, version);
        if (error.is(errors::kTooManyStreams))
            busy.set(http::field::retry_after, std::to_string(kStreamRetryAfterMs / 1000));
        busy.keep_alive(false);
        busy.prepare_payload();
        boost::system::error_code ec;
        http::write(socket, busy, ec);
        socket.shutdown(tcp::socket::shutdown_both, ec);
    };
    if (!stream.slot) {
        // A stream whose handler reserved nothing: its place is taken now (it started nothing).
        auto admission = reserve_stream(stream.owner, StreamKind::lasting);
        if (!admission) return refuse(admission.error);
        stream.slot = std::move(admission.slot);
    }
    {
        std::lock_guard lock(streams_mutex);
        // Only at shutdown can a reserved stream not start: stop() waits for the threads started.
        if (stopping.load()) {
            stream.slot.reset();
            return refuse(Error{errors::kShuttingDown, "the server is shutting down"});
        }
        ++streams;
        stream_fds.insert(socket.native_handle());
    }
    // The socket is owned through a pointer so the thread can destroy it before it reports itself
    // done: once `streams` reaches zero, stop() may destroy the io_context the socket belongs to.
    auto owned = std::make_unique<tcp::socket>(std::move(socket));
    stream_threads.start([this, owned = std::move(owned), stream = std::move(stream), version]() mutable {
        tcp::socket& sock = *owned;
        const int fd = sock.native_handle();
        http::response<http::empty_body> head{stream.status, version};
        head.set(http::field::content_type, "text/event-stream");
        head.set(http::field::cache_control, "no-cache");
        head.set("X-Accel-Buffering", "no");
        for (const auto& [name, value] : stream.headers) head.set(name, value);
        head.keep_alive(false);
        boost::system::error_code ec;
        http::response_serializer<http::empty_body> serializer(head);
        http::write_header(sock, serializer, ec);
        if (!ec) {
            SocketEventStream writer(sock, stopping, options.stream_write_timeout);
            try {
                stream.produce(writer);
            } catch (const std::exception& e) {
                spdlog::error("http: an event stream failed: {}", e.what());
            }
        }
        // Its place is free before the client sees the stream end: a client that opens its next
        // stream once this one ended is not refused for it.
        stream.slot.reset();
        {
            std::lock_guard lock(streams_mutex);
            stream_fds.erase(fd);
        }
        sock.shutdown(tcp::socket::shutdown_both, ec);
        sock.close(ec);
        owned.reset();
        stream.produce = nullptr;
        std::lock_guard lock(streams_mutex);
        --streams;
        streams_changed.notify_all();
    });
}

HttpServer::HttpServer(HttpServerOptions options, RequestHandler handler, ErrorResponder on_error)
    : options_(options),
      internals_(std::make_unique<Internals>(*this, options, std::move(handler), std::move(on_error))) {}

HttpServer::~HttpServer() {
    stop_accepting();
    stop();
}

Status HttpServer::start() {
    auto& in = *internals_;
    boost::system::error_code ec;
    const auto address = net::ip::make_address(options_.host, ec);
    if (ec) {
        Error e{errors::kBindFailed,
                "'" + options_.host + "' is not an IP address",
                {},
                {"use an address such as 127.0.0.1 (this machine only), ::1 or 0.0.0.0 in server.listen or --listen"}};
        e.details["host"] = options_.host;
        return e;
    }
    const tcp::endpoint endpoint(address, options_.port);
    auto fail = [&](const char* what) {
        Error e{errors::kBindFailed,
                std::string(what) + " " + options_.host + ":" + std::to_string(options_.port) + ": " + ec.message(),
                {},
                {}};
        if (ec == net::error::address_in_use) {
            e.suggestions.push_back(
                "another process listens on this port: stop it, or choose another with --listen HOST:PORT");
        } else if (ec == boost::system::errc::address_not_available) {
            e.suggestions.push_back(
                "the address does not belong to this machine; use 127.0.0.1 or one of its own addresses");
        } else if (ec == net::error::access_denied) {
            e.suggestions.push_back("ports below 1024 need privileges; use a port such as 8787");
        }
        e.details["host"] = options_.host;
        e.details["port"] = options_.port;
        return e;
    };
    in.acceptor.open(endpoint.protocol(), ec);
    if (ec) return fail("cannot open a socket for");
    in.acceptor.set_option(net::socket_base::reuse_address(true), ec);
    in.acceptor.bind(endpoint, ec);
    if (ec) return fail("cannot bind");
    in.acceptor.listen(net::socket_base::max_listen_connections, ec);
    if (ec) return fail("cannot listen on");
    bound_port_ = in.acceptor.local_endpoint().port();
    in.accept();
    const unsigned n = std::max(1u, options_.network_threads);
    for (unsigned i = 0; i < n; ++i) in.network_threads.emplace_back([&in] { in.ioc.run(); });
    return {};
}

void HttpServer::stop_accepting() {
    auto& in = *internals_;
    net::post(in.ioc, [&in] {
        boost::system::error_code ec;
        in.acceptor.close(ec);
        in.accept_pause.cancel();
    });
}

bool HttpServer::wait_idle(std::chrono::milliseconds limit) {
    auto& in = *internals_;
    std::unique_lock lock(in.idle_mutex);
    return in.idle_changed.wait_for(lock, limit, [this] { return in_flight_.load() == 0; });
}

std::size_t HttpServer::open_streams() const {
    std::lock_guard lock(internals_->streams_mutex);
    return internals_->streams;
}

std::size_t HttpServer::open_connections() const {
    return internals_->open_connections();
}

bool HttpServer::stream_available(const std::string& owner) const {
    const auto& ledger = *internals_->ledger;
    std::lock_guard lock(ledger.mutex);
    if (internals_->stopping.load() || ledger.total >= ledger.max_streams) return false;
    return ledger.count_of(ledger.lasting_by_owner, owner) < ledger.max_lasting_per_user;
}

StreamAdmission HttpServer::reserve_stream(const std::string& owner, StreamKind kind) {
    return internals_->reserve_stream(owner, kind);
}

StreamSlot HttpServer::take_over_stream(const std::weak_ptr<StreamSlot::State>& old) {
    auto state = old.lock();
    if (!state) return {};
    auto& ledger = *internals_->ledger;
    std::lock_guard lock(ledger.mutex);
    if (!state->counted || internals_->stopping.load()) return {};
    state->counted = false;  // the count moves to the new slot, so the place never looks free between
    auto taken = std::make_shared<StreamSlot::State>(internals_->ledger, state->owner, state->kind);
    return StreamSlot(std::move(taken));
}

void HttpServer::stop() {
    auto& in = *internals_;
    if (in.stopped) return;
    in.stopped = true;
    in.stopping = true;
    {
        std::unique_lock lock(in.streams_mutex);
        for (int fd : in.stream_fds) ::shutdown(fd, SHUT_RDWR);
        in.streams_changed.wait(lock, [&in] { return in.streams == 0; });
    }
    in.stream_threads.join_all();
    {
        std::unique_lock lock(in.handlers_mutex);
        in.handlers_changed.wait(lock, [&in] { return in.handlers_running == 0; });
    }
    in.work.reset();
    in.ioc.stop();
    for (auto& t : in.network_threads) {
        if (t.joinable()) t.join();
    }
}

}  // namespace skillhost::server
