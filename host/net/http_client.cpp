#include "net/http_client.hpp"
#include "net/error_codes.hpp"

#include "net/bounded_lookup.hpp"
#include "net/url.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <cctype>
#include <exception>
#include <openssl/ssl.h>

namespace skillhost::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

enum class Failure { none, connect, connect_timeout, read_timeout, total_timeout, cancelled, tls, protocol, too_large };

struct AttemptResult {
    Failure failure = Failure::none;
    std::string reason;
    HttpResponse response;
};

// Shared by the request coroutine and the cancellation poller; both run on one thread.
struct Exchange {
    Exchange(asio::io_context& context, const HttpRequest& req, const Url& target_url, const HttpClientOptions& opts,
             const BodyChunkHandler& chunk_handler)
        : ioc(context), request(req), url(target_url), options(opts), on_chunk(chunk_handler), poll_timer(context) {}

    asio::io_context& ioc;
    const HttpRequest& request;
    const Url& url;
    const HttpClientOptions& options;
    const BodyChunkHandler& on_chunk;
    std::unique_ptr<asio::ssl::context> ssl_context;
    bool cancelled = false;
    bool expired = false;  // past options.total_timeout: aborted like a cancel
    bool finished = false;
    // Aborts whatever the request currently waits on (socket, backoff timer); set per phase.
    std::function<void()> abort_current;
    asio::steady_timer poll_timer;
    AttemptResult outcome;
};

// Sets Exchange::abort_current for one phase and restores the enclosing phase's when it ends, so
// the poller never touches a dead object.
struct AbortScope {
    Exchange& exchange;
    std::function<void()> previous;
    AbortScope(Exchange& ex, std::function<void()> abort) : exchange(ex), previous(std::move(ex.abort_current)) {
        exchange.abort_current = std::move(abort);
    }
    ~AbortScope() { exchange.abort_current = std::move(previous); }
    AbortScope(const AbortScope&) = delete;
    AbortScope& operator=(const AbortScope&) = delete;
};

auto await_ec(beast::error_code& ec) {
    return asio::redirect_error(asio::use_awaitable, ec);
}

bool timed_out(const beast::error_code& ec, Clock::time_point started, milliseconds limit) {
    // A TLS layer may report the expiry of the TCP stream's timer as a different error, so the
    // elapsed time decides too.
    return ec == beast::error::timeout || Clock::now() - started >= limit - milliseconds(5);
}

// Coroutines here return nothing and fill `out`: GCC 12 mishandles some coroutine return values
// with non-trivial members.
template <class Stream>
asio::awaitable<void> exchange_message(Exchange& ex, Stream& stream, AttemptResult& out) {
    beast::error_code ec;
    auto& lowest = beast::get_lowest_layer(stream);
    const milliseconds read_timeout = ex.options.read_timeout;

    const bhttp::verb verb = bhttp::string_to_verb(ex.request.method);
    if (verb == bhttp::verb::unknown) {
        out.failure = Failure::protocol;
        out.reason = "unknown HTTP method '" + ex.request.method + "'";
        co_return;
    }
    bhttp::request<bhttp::string_body> req{verb, ex.url.target, 11};
    req.set(bhttp::field::host, ex.url.host_header());
    req.set(bhttp::field::user_agent, "skillhost");
    for (const auto& [name, value] : ex.request.headers) req.set(name, value);
    req.body() = ex.request.body;
    req.keep_alive(false);
    req.prepare_payload();

    auto started = Clock::now();
    lowest.expires_after(read_timeout);
    co_await bhttp::async_write(stream, req, await_ec(ec));
    if (ec) {
        if (ex.cancelled) {
            out.failure = Failure::cancelled;
        } else {
            // Nothing was answered yet, so trying again is safe.
            out.failure = Failure::connect;
            out.reason = "the connection failed while sending the request: " + ec.message();
        }
        co_return;
    }

    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::buffer_body> parser;
    parser.body_limit(ex.options.max_response_bytes);  // a Content-Length past it fails with the header
    started = Clock::now();
    lowest.expires_after(read_timeout);
    co_await bhttp::async_read_header(stream, buffer, parser, await_ec(ec));
    if (ec) {
        if (ex.cancelled) {
            out.failure = Failure::cancelled;
        } else if (ec == bhttp::error::body_limit) {
            out.failure = Failure::too_large;
        } else if (timed_out(ec, started, read_timeout)) {
            out.failure = Failure::read_timeout;
            out.reason = "no response within " + std::to_string(read_timeout.count()) + " ms";
        } else if (ec == bhttp::error::end_of_stream || ec == asio::error::connection_reset || ec == asio::error::eof) {
            out.failure = Failure::connect;
            out.reason = "the server closed the connection without answering";
        } else {
            out.failure = Failure::protocol;
            out.reason = "the response headers could not be read: " + ec.message();
        }
        co_return;
    }

    out.response.status = static_cast<int>(parser.get().result_int());
    for (const auto& field : parser.get()) {
        out.response.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    if (ex.options.on_headers) ex.options.on_headers(out.response);
    const bool deliver = ex.on_chunk && out.response.status / 100 == 2;

    std::array<char, 16384> chunk{};
    while (!parser.is_done()) {
        parser.get().body().data = chunk.data();
        parser.get().body().size = chunk.size();
        started = Clock::now();
        lowest.expires_after(read_timeout);
        co_await bhttp::async_read_some(stream, buffer, parser, await_ec(ec));
        if (ec == bhttp::error::need_buffer) ec = {};
        const std::size_t received = chunk.size() - parser.get().body().size;
        if (received > 0) {
            const std::string_view piece(chunk.data(), received);
            if (deliver) {
                ex.on_chunk(piece);
            } else {
                out.response.body.append(piece);
            }
        }
        if (ec) {
            if (ex.cancelled) {
                out.failure = Failure::cancelled;
            } else if (ec == bhttp::error::body_limit) {
                out.failure = Failure::too_large;
            } else if (timed_out(ec, started, read_timeout)) {
                out.failure = Failure::read_timeout;
                out.reason =
                    "the response stalled: nothing arrived for " + std::to_string(read_timeout.count()) + " ms";
            } else {
                out.failure = Failure::protocol;
                out.reason = "the response body could not be read: " + ec.message();
            }
            co_return;
        }
    }
    lowest.socket().shutdown(tcp::socket::shutdown_both, ec);
    co_return;
}

// Resolves and connects `lowest`; on failure returns false with `out` filled in. The lookup
// counts against the connect timeout (it blocks this request's own thread, which has nothing
// else to do meanwhile, and watches the cancel flag itself).
asio::awaitable<void> connect_tcp(Exchange& ex, beast::tcp_stream& lowest, AttemptResult& out, bool& connected) {
    beast::error_code ec;
    const auto lookup_started = Clock::now();
    LookupResult lookup = resolve_within(ex.url.host, ex.url.port, ex.options.connect_timeout, ex.options.cancel,
                                         ex.options.cancel_poll_interval,
                                         ex.options.resolver ? ex.options.resolver : NameResolver(system_resolve));
    if (!lookup.ok()) {
        if (lookup.cancelled) ex.cancelled = true;
        out.failure =
            lookup.cancelled ? Failure::cancelled : (lookup.timed_out ? Failure::connect_timeout : Failure::connect);
        out.reason = "cannot resolve host '" + ex.url.host + "': " + lookup.error;
        co_return;
    }
    const auto left =
        ex.options.connect_timeout - std::chrono::duration_cast<milliseconds>(Clock::now() - lookup_started);
    const auto connect_limit = std::max(milliseconds(1), left);
    const auto started = Clock::now();
    lowest.expires_after(connect_limit);
    co_await lowest.async_connect(lookup.endpoints, await_ec(ec));
    if (ec) {
        if (ex.cancelled) {
            out.failure = Failure::cancelled;
        } else if (timed_out(ec, started, connect_limit)) {
            out.failure = Failure::connect_timeout;
            out.reason = "no connection within " + std::to_string(ex.options.connect_timeout.count()) + " ms";
        } else {
            out.failure = Failure::connect;
            out.reason = ec.message();
        }
        co_return;
    }
    connected = true;
}

asio::awaitable<void> attempt_plain(Exchange& ex, AttemptResult& out) {
    beast::tcp_stream stream(ex.ioc);
    AbortScope scope(ex, [&stream] { stream.close(); });
    bool connected = false;
    co_await connect_tcp(ex, stream, out, connected);
    if (!connected) co_return;
    co_await exchange_message(ex, stream, out);
}

asio::awaitable<void> attempt_tls(Exchange& ex, AttemptResult& out) {
    if (!ex.ssl_context) {
        ex.ssl_context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
        ex.ssl_context->set_default_verify_paths();
        ex.ssl_context->set_verify_mode(asio::ssl::verify_peer);
    }
    beast::ssl_stream<beast::tcp_stream> stream(ex.ioc, *ex.ssl_context);
    AbortScope scope(ex, [&stream] { beast::get_lowest_layer(stream).close(); });
    // SNI, so servers behind a shared address present the right certificate.
    if (!SSL_set_tlsext_host_name(stream.native_handle(), ex.url.host.c_str())) {
        out.failure = Failure::tls;
        out.reason = "cannot set the TLS server name";
        co_return;
    }
    stream.set_verify_callback(asio::ssl::host_name_verification(ex.url.host));
    bool connected = false;
    co_await connect_tcp(ex, beast::get_lowest_layer(stream), out, connected);
    if (!connected) co_return;

    beast::error_code ec;
    const auto started = Clock::now();
    beast::get_lowest_layer(stream).expires_after(ex.options.connect_timeout);
    co_await stream.async_handshake(asio::ssl::stream_base::client, await_ec(ec));
    if (ec) {
        if (ex.cancelled) {
            out.failure = Failure::cancelled;
        } else if (timed_out(ec, started, ex.options.connect_timeout)) {
            out.failure = Failure::connect_timeout;
            out.reason =
                "the TLS handshake did not finish within " + std::to_string(ex.options.connect_timeout.count()) + " ms";
        } else {
            out.failure = Failure::tls;
            out.reason = ec.message();
        }
        co_return;
    }
    co_await exchange_message(ex, stream, out);
}

milliseconds retry_delay(const HttpClientOptions& options, const HttpResponse& response, int attempt) {
    const std::string retry_after = response.header("retry-after");
    if (!retry_after.empty() &&
        std::all_of(retry_after.begin(), retry_after.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
        retry_after.size() < 7) {
        return std::min(milliseconds(std::stol(retry_after) * 1000), options.retry_after_cap);
    }
    milliseconds delay = options.backoff_initial;
    for (int i = 1; i < attempt && delay < options.backoff_max; ++i) delay *= 2;
    return std::min(delay, options.backoff_max);
}

asio::awaitable<void> run_attempts(Exchange& ex) {
    for (int attempt = 1;; ++attempt) {
        AttemptResult result;
        if (ex.url.is_tls()) {
            co_await attempt_tls(ex, result);
        } else {
            co_await attempt_plain(ex, result);
        }
        result.response.attempts = attempt;
        if (ex.cancelled) result.failure = ex.expired ? Failure::total_timeout : Failure::cancelled;
        const bool retryable =
            result.failure == Failure::connect || result.failure == Failure::connect_timeout ||
            (result.failure == Failure::none && (result.response.status == 429 || result.response.status == 503));
        if (!retryable || attempt > ex.options.max_retries) {
            ex.outcome = std::move(result);
            break;
        }
        asio::steady_timer backoff(ex.ioc);
        backoff.expires_after(retry_delay(ex.options, result.response, attempt));
        beast::error_code ec;
        {
            AbortScope scope(ex, [&backoff] { backoff.cancel(); });
            co_await backoff.async_wait(await_ec(ec));
        }
        if (ex.cancelled) {
            ex.outcome = std::move(result);
            ex.outcome.failure = ex.expired ? Failure::total_timeout : Failure::cancelled;
            break;
        }
    }
}

// Watches the cancel flag and the total deadline; either aborts what the request waits on.
asio::awaitable<void> poll_cancellation(Exchange& ex) {
    beast::error_code ec;
    const bool has_deadline = ex.options.total_timeout.count() > 0;
    const auto deadline = Clock::now() + ex.options.total_timeout;
    while (!ex.finished) {
        ex.poll_timer.expires_after(ex.options.cancel_poll_interval);
        co_await ex.poll_timer.async_wait(await_ec(ec));
        if (ex.finished) co_return;
        const bool cancelled = (ex.options.cancel != nullptr && ex.options.cancel->load()) ||
                               (ex.options.cancel_when && ex.options.cancel_when());
        const bool expired = has_deadline && Clock::now() >= deadline;
        if (cancelled || expired) {
            ex.expired = !cancelled;
            ex.cancelled = true;
            if (ex.abort_current) ex.abort_current();
            co_return;
        }
    }
}

Error transport_error(const Url& url, const AttemptResult& result, const HttpClientOptions& options) {
    Error error;
    std::string phase;
    switch (result.failure) {
        case Failure::connect:
            error.recode(errors::kHttpUnreachable);
            error.message = "cannot connect to " + url.origin() + ": " + result.reason;
            phase = "connect";
            break;
        case Failure::connect_timeout:
            error.recode(errors::kHttpTimeout);
            error.message = "cannot connect to " + url.origin() + ": " + result.reason;
            phase = "connect";
            break;
        case Failure::read_timeout:
            error.recode(errors::kHttpTimeout);
            error.message = url.origin() + " did not answer in time: " + result.reason;
            phase = "read";
            break;
        case Failure::total_timeout:
            error.recode(errors::kHttpTimeout);
            error.message = url.origin() + " did not finish its answer within the total deadline of " +
                            std::to_string(options.total_timeout.count()) + " ms";
            error.suggestions = {"raise the model's total_timeout_ms in models.yaml if its answers are this slow"};
            error.details["limit_ms"] = options.total_timeout.count();
            phase = "total";
            break;
        case Failure::cancelled:
            error.recode(errors::kHttpCancelled);
            error.message = "the request to " + url.origin() + " was cancelled";
            break;
        case Failure::tls:
            error.recode(errors::kHttpTlsError);
            error.message = "TLS with " + url.origin() + " failed: " + result.reason +
                            " — check the certificate, or use http:// for a local server";
            phase = "connect";
            break;
        case Failure::too_large:
            error.recode(errors::kHttpResponseTooLarge);
            error.message = url.origin() + " sent a response body larger than " +
                            std::to_string(options.max_response_bytes) + " bytes; the rest was not read";
            error.suggestions = {
                "check that the URL points at the intended server; a model answer this large is a runaway"};
            error.details["limit_bytes"] = options.max_response_bytes;
            phase = "read";
            break;
        case Failure::protocol:
        case Failure::none:
            error.recode(errors::kHttpProtocolError);
            error.message = url.origin() + " sent a response that is not valid HTTP: " + result.reason;
            phase = "read";
            break;
    }
    error.details["url"] = url.origin() + url.target;
    error.details["attempts"] = result.response.attempts;
    if (!phase.empty()) error.details["phase"] = phase;
    if (!result.reason.empty()) error.details["reason"] = result.reason;
    return error;
}

}  // namespace

std::string HttpResponse::header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
        if (key.size() == name.size() && std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
            })) {
            return value;
        }
    }
    return {};
}

Result<HttpResponse> send_http_request(const HttpRequest& request, const HttpClientOptions& options,
                                       const BodyChunkHandler& on_body_chunk) {
    auto url = parse_url(request.url);
    if (!url) return url.error();
    if ((options.cancel && options.cancel->load()) || (options.cancel_when && options.cancel_when())) {
        AttemptResult cancelled;
        cancelled.failure = Failure::cancelled;
        cancelled.response.attempts = 0;
        return transport_error(*url, cancelled, options);
    }

    asio::io_context ioc;
    Exchange exchange(ioc, request, *url, options, on_body_chunk);
    std::exception_ptr failure;
    asio::co_spawn(ioc, run_attempts(exchange), [&failure, &exchange](std::exception_ptr e) {
        // Also on an exception, so the cancellation poller stops and run() returns.
        if (e) failure = e;
        exchange.finished = true;
        exchange.poll_timer.cancel();
    });
    if (options.cancel || options.cancel_when || options.total_timeout.count() > 0) {
        asio::co_spawn(ioc, poll_cancellation(exchange), [](std::exception_ptr) {});
    }
    try {
        ioc.run();
        if (failure) std::rethrow_exception(failure);
    } catch (const std::exception& e) {
        AttemptResult broken;
        broken.failure = Failure::protocol;
        broken.reason = e.what();
        return transport_error(*url, broken, options);
    }
    if (exchange.outcome.failure != Failure::none) return transport_error(*url, exchange.outcome, options);
    return std::move(exchange.outcome.response);
}

}  // namespace skillhost::http
