#include "upstream/http_channel.hpp"

#include "net/error_codes.hpp"
#include "net/http_client.hpp"
#include "upstream/call_errors.hpp"
#include "upstream/error_codes.hpp"
#include "upstream/rpc_message.hpp"
#include "upstream/sse_parser.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

namespace skillhost::upstream {
namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

constexpr auto kConnectLimit = milliseconds(5000);
constexpr auto kDefaultRetry = milliseconds(1000);       // before resuming a stream that named no `retry:`
constexpr auto kAnswerLimit = std::chrono::seconds(10);  // for the client's answers to the server's requests
constexpr auto kCloseLimit = std::chrono::seconds(2);    // for the DELETE that ends the session
constexpr std::size_t kStreamFactor = 16;                // a stream carries at most this many max_message_bytes
constexpr std::size_t kMaxServerRequests = 64;           // the server's requests answered in one exchange

milliseconds left_until(Clock::time_point deadline) {
    return std::max(milliseconds(1), std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
}

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

std::string phase_of(const Error& error) {
    const json::value* phase = error.details.if_contains("phase");
    return phase != nullptr && phase->is_string() ? std::string(phase->get_string()) : std::string();
}

}  // namespace

// A call waiting for its answer, which may come on a stream other than its own.
struct HttpChannel::Routed {
    std::atomic<bool> answered{false};
    Result<json::value> answer{json::value()};
};

// One HTTP exchange (a POST of one message, the GET resuming its stream, or the DELETE) and what
// came of it.
struct HttpChannel::Exchange {
    std::optional<std::int64_t> answer_id;  // the call whose answer ends the exchange
    Clock::time_point deadline;
    const std::atomic<bool>* cancelled = nullptr;
    bool abort_on_close = true;    // false for the DELETE that closing sends
    bool capture_session = false;  // initialize: the answer's Mcp-Session-Id is the session's
    bool sent_session = false;     // the request carried a session id

    int status = 0;
    bool stream = false;
    std::string body;              // a JSON body, or a failed response's (bounded either way)
    std::string www_authenticate;  // a 401/403's challenge
    std::string sent_authorization;
    std::optional<Result<json::value>> answer;
    bool too_large = false;
    std::atomic<bool> done{false};  // answered or over a limit: stop reading
    std::optional<Error> failure;   // the HTTP exchange itself failed
    std::string last_event_id;
    std::optional<std::uint64_t> retry_ms;
    // The call's answer when it came on another stream (the GET stream: some servers send it there).
    std::shared_ptr<Routed> routed;
    std::function<void()> on_open;    // called once the status and headers are read
    std::size_t messages = 0;         // JSON-RPC messages read
    std::size_t server_requests = 0;  // of them, the server's requests
};

HttpChannel::HttpChannel(std::string label, HttpEndpoint endpoint, RpcLimits limits, RpcHandlers handlers)
    : label_(std::move(label)), endpoint_(std::move(endpoint)), limits_(limits), handlers_(std::move(handlers)) {}

HttpChannel::~HttpChannel() {
    close("the session was closed by skillhost");
    if (listener_.joinable()) listener_.join();
}

void HttpChannel::start_listening() {
    std::unique_lock lock(mutex_);
    if (listening_ || closed_) return;
    if (listener_.joinable()) listener_.join();  // ended (the session before a renewal)
    listening_ = true;
    listen_opened_ = false;
    listener_ = std::thread([this] { listen(); });
    // The stream is open (or refused) before the next request: what the server sends on it about
    // that request (an elicitation, even the answer) has somewhere to go.
    opened_.wait_for(lock, kConnectLimit, [this] { return listen_opened_; });
}

void HttpChannel::note_opened() {
    std::lock_guard lock(mutex_);
    listen_opened_ = true;
    opened_.notify_all();
}

void HttpChannel::listen() {
    std::string last_event_id;
    std::optional<std::uint64_t> retry_ms;
    int failures = 0;
    while (!closing_ && failures < kMaxResumptions) {
        Exchange exchange;
        exchange.deadline = Clock::now() + std::chrono::hours(24);
        exchange.on_open = [this] { note_opened(); };
        run_exchange(exchange, "GET", "", last_event_id);
        note_opened();
        if (closing_) break;
        if (!exchange.failure && exchange.status / 100 != 2) break;  // 405: the server has no such stream
        if (!exchange.last_event_id.empty()) last_event_id = exchange.last_event_id;
        if (exchange.retry_ms) retry_ms = exchange.retry_ms;
        // A stream that breaks, or ends having carried nothing, counts towards giving up.
        failures = exchange.failure || exchange.too_large || exchange.messages == 0 ? failures + 1 : 0;
        const auto resume_at = Clock::now() + (retry_ms ? milliseconds(*retry_ms) : kDefaultRetry);
        while (Clock::now() < resume_at && !closing_) std::this_thread::sleep_for(milliseconds(10));
    }
    std::lock_guard lock(mutex_);
    listening_ = false;
}

bool HttpChannel::closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
}

std::string HttpChannel::closed_reason() const {
    std::lock_guard lock(mutex_);
    return closed_reason_;
}

std::string HttpChannel::session_id() const {
    std::lock_guard lock(mutex_);
    return session_id_;
}

HttpCounters HttpChannel::counters() const {
    std::lock_guard lock(mutex_);
    return counters_;
}

void HttpChannel::end(const std::string& reason) {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
    closed_reason_ = reason;
    closing_ = true;
}

void HttpChannel::close(const std::string& reason) {
    std::string session;
    {
        std::lock_guard lock(mutex_);
        if (closed_) return;
        session = session_id_;
    }
    end(reason);
    if (session.empty()) return;
    Exchange exchange;
    exchange.deadline = Clock::now() + kCloseLimit;
    exchange.abort_on_close = false;
    run_exchange(exchange, "DELETE", "", "");
}

Error HttpChannel::closed_error() const {
    const std::string reason = closed_reason();
    Error error{errors::kUpstreamClosed, "the session with " + label_ + " ended (" + reason +
                                             "); the call was not completed. A new session is opened on the next "
                                             "call; if this repeats, check the server"};
    error.details["reason"] = reason;
    return error;
}

Error HttpChannel::status_error(int status, const std::string& body) const {
    std::string text = label_ + " refused the request with HTTP " + std::to_string(status);
    if (!body.empty()) text += ": " + printable(body);
    if (status == 401 || status == 403) text += "; check the headers in its declaration (credentials)";
    Error error{errors::kUpstreamError, std::move(text)};
    error.details["http_status"] = status;
    return error;
}

std::vector<std::pair<std::string, std::string>> HttpChannel::request_headers(bool post) const {
    std::vector<std::pair<std::string, std::string>> headers = endpoint_.headers;
    headers.emplace_back("Accept", post ? "application/json, text/event-stream" : "text/event-stream");
    if (post) headers.emplace_back("Content-Type", "application/json");
    if (endpoint_.authorizer) {
        std::string credential = endpoint_.authorizer->authorization();
        if (!credential.empty()) headers.emplace_back("Authorization", std::move(credential));
    }
    std::lock_guard lock(mutex_);
    if (!session_id_.empty()) headers.emplace_back("Mcp-Session-Id", session_id_);
    if (!protocol_version_.empty()) headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    return headers;
}

void HttpChannel::run_exchange(Exchange& exchange, const std::string& http_method, const std::string& body,
                               const std::string& last_event_id) {
    http::HttpRequest request{http_method, endpoint_.url, request_headers(http_method == "POST"), body};
    for (const auto& [name, value] : request.headers) {
        exchange.sent_session |= name == "Mcp-Session-Id";
        if (name == "Authorization") exchange.sent_authorization = value;
    }
    if (!last_event_id.empty()) request.headers.emplace_back("Last-Event-ID", last_event_id);
    http::HttpClientOptions options;
    const milliseconds left = left_until(exchange.deadline);
    options.connect_timeout = std::min(kConnectLimit, left);
    options.read_timeout = left;
    options.total_timeout = left;
    options.max_retries = 0;  // a request written is never written again
    options.max_response_bytes = limits_.max_message_bytes * kStreamFactor;
    options.cancel_poll_interval = milliseconds(10);
    options.cancel_when = [this, &exchange] {
        return exchange.done.load() || (exchange.routed && exchange.routed->answered.load()) ||
               (exchange.abort_on_close && closing_.load()) ||
               (exchange.cancelled != nullptr && exchange.cancelled->load());
    };
    SseParser parser(limits_.max_message_bytes, [this, &exchange](SseEvent event) {
        if (exchange.done) return;
        if (event.data.find_first_not_of(" \t\r\n") == std::string::npos) return;  // a priming event
        std::error_code ec;
        const json::value message = json::parse(event.data, ec);
        if (ec) {
            std::lock_guard lock(mutex_);
            if (++counters_.noise_events <= 20)
                spdlog::warn("{} sent an event that is not JSON (ignored): {}", label_, printable(event.data));
            return;
        }
        on_message(message, exchange);
    });
    options.on_headers = [this, &exchange](const http::HttpResponse& head) {
        if (exchange.on_open) exchange.on_open();
        exchange.status = head.status;
        exchange.stream = lower(head.header("content-type")).starts_with("text/event-stream");
        const std::string session = head.header("mcp-session-id");
        if (exchange.capture_session && head.status / 100 == 2 && !session.empty()) {
            std::lock_guard lock(mutex_);
            session_id_ = session.substr(0, 1024);
        }
    };
    const auto on_chunk = [&](std::string_view piece) {
        if (exchange.done) return;
        if (exchange.stream) {
            if (!parser.feed(piece)) {
                exchange.too_large = true;
                exchange.done = true;
            }
            return;
        }
        if (exchange.body.size() + piece.size() > limits_.max_message_bytes) {
            exchange.too_large = true;
            exchange.done = true;
            return;
        }
        exchange.body.append(piece);
    };
    auto response = http::send_http_request(request, options, on_chunk);
    exchange.last_event_id = parser.last_event_id();
    if (parser.retry_ms()) exchange.retry_ms = parser.retry_ms();
    if (!response) {
        // A body whose declared length is past the stream's bound is refused before it is read.
        if (response.error().is(errors::kHttpResponseTooLarge)) exchange.too_large = true;
        exchange.failure = std::move(response.error());
        return;
    }
    exchange.status = response->status;
    if (response->status / 100 != 2) {
        exchange.body = response->body.substr(0, 2000);
        if (response->status == 401 || response->status == 403)
            exchange.www_authenticate = response->header("www-authenticate").substr(0, 8192);
        return;
    }
    if (exchange.stream || exchange.done || exchange.body.empty()) return;
    std::error_code ec;
    const json::value message = json::parse(exchange.body, ec);
    if (ec) {
        if (exchange.answer_id)
            exchange.answer = Error{errors::kUpstreamProtocolError,
                                    label_ + " answered with a body that is not JSON: " + printable(exchange.body)};
        return;
    }
    if (const json::array* batch = message.if_array()) {
        for (const json::value& item : *batch) on_message(item, exchange);
    } else {
        on_message(message, exchange);
    }
}

void HttpChannel::on_message(const json::value& message, Exchange& exchange) {
    IncomingMessage read = read_message(message, label_);
    ++exchange.messages;
    if (read.kind == IncomingMessage::Kind::request && ++exchange.server_requests > kMaxServerRequests) {
        if (exchange.server_requests == kMaxServerRequests + 1)
            spdlog::warn("{} sent more than {} requests in one answer; the rest are not answered", label_,
                         kMaxServerRequests);
        return;
    }
    switch (read.kind) {
        case IncomingMessage::Kind::noise: {
            std::lock_guard lock(mutex_);
            ++counters_.noise_events;
            return;
        }
        case IncomingMessage::Kind::request: {
            if (read.method == "ping") return answer_server(*read.id, json::value(json::object()));
            if (!handlers_.on_request)
                return answer_server(
                    *read.id, Error{errors::kUpstreamError,
                                    "skillhost does not offer '" + std::string(read.method) + "' to this server"});
            handlers_.on_request(read.method, *read.params, [this, id = *read.id](Result<json::value> result) {
                answer_server(id, std::move(result));
            });
            return;
        }
        case IncomingMessage::Kind::notification: {
            {
                std::lock_guard lock(mutex_);
                if (!rate_.admit(Clock::now())) {
                    counters_.dropped_notifications = rate_.dropped();
                    return;
                }
            }
            if (handlers_.on_notification) handlers_.on_notification(read.method, *read.params);
            return;
        }
        case IncomingMessage::Kind::stray: {
            std::lock_guard lock(mutex_);
            ++counters_.unmatched_answers;
            return;
        }
        case IncomingMessage::Kind::answer: {
            if (exchange.answer_id && *exchange.answer_id == read.answer_id && !exchange.answer) {
                exchange.answer = std::move(read.answer);
                exchange.done = true;
                return;
            }
            std::lock_guard lock(mutex_);
            const auto waiting = routed_.find(read.answer_id);
            if (waiting == routed_.end() || waiting->second->answered) {
                ++counters_.unmatched_answers;
                return;
            }
            waiting->second->answer = std::move(read.answer);
            waiting->second->answered = true;
            return;
        }
    }
}

void HttpChannel::answer_server(const json::value& id, Result<json::value> result) {
    if (closed()) return;
    Exchange exchange;
    exchange.deadline = Clock::now() + kAnswerLimit;
    run_exchange(exchange, "POST", answer_text(id, std::move(result)), "");
    if (exchange.failure || exchange.status / 100 != 2)
        spdlog::warn("{} did not take skillhost's answer to its request ({})", label_,
                     exchange.failure ? exchange.failure->message : "HTTP " + std::to_string(exchange.status));
}

Result<json::value> HttpChannel::send_request(std::int64_t id, std::string_view method, const std::string& body,
                                              Clock::time_point deadline, const std::atomic<bool>* cancelled,
                                              Unprocessed& unprocessed) {
    auto routed = std::make_shared<Routed>();
    {
        std::lock_guard lock(mutex_);
        routed_[id] = routed;
    }
    struct Unroute {
        HttpChannel& channel;
        std::int64_t id;
        ~Unroute() {
            std::lock_guard lock(channel.mutex_);
            channel.routed_.erase(id);
        }
    } unroute{*this, id};
    auto exchange = std::make_unique<Exchange>();
    exchange->answer_id = id;
    exchange->deadline = deadline;
    exchange->cancelled = cancelled;
    exchange->capture_session = method == "initialize";
    exchange->routed = routed;
    run_exchange(*exchange, "POST", body, "");
    const bool sent_session = exchange->sent_session;
    const auto take_routed = [&] {
        std::lock_guard lock(mutex_);
        if (!exchange->answer && routed->answered) exchange->answer = std::move(routed->answer);
    };
    take_routed();
    const auto stopped = [&] {
        return closing_.load() || routed->answered.load() || Clock::now() >= deadline ||
               (cancelled != nullptr && cancelled->load());
    };
    // An event stream that ended before the answer, after events with ids: resumed, not resent.
    for (int resumed = 0; !exchange->answer && !exchange->too_large && exchange->stream &&
                          !exchange->last_event_id.empty() && resumed < kMaxResumptions && !stopped();
         ++resumed) {
        if (exchange->failure && exchange->failure->is(errors::kHttpCancelled)) break;
        const auto wait = exchange->retry_ms ? milliseconds(*exchange->retry_ms) : kDefaultRetry;
        const auto resume_at = std::min(deadline, Clock::now() + wait);
        while (Clock::now() < resume_at && !stopped()) std::this_thread::sleep_for(milliseconds(5));
        if (stopped()) break;
        auto next = std::make_unique<Exchange>();
        next->answer_id = id;
        next->deadline = deadline;
        next->cancelled = cancelled;
        next->retry_ms = exchange->retry_ms;
        next->routed = routed;
        {
            std::lock_guard lock(mutex_);
            ++counters_.resumptions;
        }
        run_exchange(*next, "GET", "", exchange->last_event_id);
        if (next->last_event_id.empty()) next->last_event_id = exchange->last_event_id;
        if (!next->failure && next->status / 100 != 2) {
            end("it ended the event stream of a request before answering, and refused to resume it (HTTP " +
                std::to_string(next->status) + ")");
            return closed_error();
        }
        if (!next->stream && !next->answer && !next->failure) next->stream = true;
        exchange = std::move(next);
        take_routed();
    }
    take_routed();
    if (exchange->answer) return std::move(*exchange->answer);
    if (exchange->too_large) {
        return too_large_error(label_, limits_.max_message_bytes);
    }
    if (closing_) return closed_error();
    const bool was_cancelled = cancelled != nullptr && cancelled->load();
    const bool timed_out =
        Clock::now() >= deadline ||
        (exchange->failure && exchange->failure->is(errors::kHttpTimeout) && phase_of(*exchange->failure) != "connect");
    if (was_cancelled || timed_out) {
        const std::string reason = was_cancelled ? "the caller cancelled the call" : "the call's deadline passed";
        notify("notifications/cancelled", json::object{{"requestId", id}, {"reason", reason}},
               Clock::now() + std::chrono::seconds(1));
        return unanswered_error(label_, method, was_cancelled);
    }
    if (exchange->failure) {
        const Error& failure = *exchange->failure;
        const bool unreachable = failure.is(errors::kHttpUnreachable) || failure.is(errors::kHttpTlsError) ||
                                 (failure.is(errors::kHttpTimeout) && phase_of(failure) == "connect");
        end(unreachable ? "cannot reach it: " + failure.message
                        : "the connection broke while its answer was read: " + failure.message);
        return closed_error();
    }
    if (auto refusal = refusal_of(*exchange)) {
        unprocessed.refused = std::move(refusal);
        return status_error(exchange->status, exchange->body);
    }
    if (exchange->status == 404 && sent_session && method != "initialize") {
        unprocessed.expired = true;
        return Error{errors::kUpstreamClosed, label_ + " says the session expired"};
    }
    if (exchange->status == 202)
        return Error{errors::kUpstreamProtocolError,
                     label_ + " accepted the request '" + std::string(method) + "' (HTTP 202) without answering it"};
    if (exchange->status / 100 != 2) return status_error(exchange->status, exchange->body);
    if (exchange->stream) {
        end("it ended the event stream of a request before answering");
        return closed_error();
    }
    return Error{errors::kUpstreamProtocolError,
                 label_ + " answered '" + std::string(method) + "' with no JSON-RPC answer to it"};
}

void HttpChannel::adopt(const json::value& initialize_answer) {
    const json::object* result = initialize_answer.if_object();
    const json::value* version = result != nullptr ? result->if_contains("protocolVersion") : nullptr;
    std::lock_guard lock(mutex_);
    if (version != nullptr && version->is_string() && version->get_string().size() <= 32)
        protocol_version_ = std::string(version->get_string());
}

bool HttpChannel::renew_session(Clock::time_point deadline) {
    json::object request{{"jsonrpc", "2.0"}, {"method", "initialize"}};
    {
        std::lock_guard lock(mutex_);
        request["params"] = initialize_params_;
        session_id_.clear();
        protocol_version_.clear();
        ++counters_.sessions_renewed;
    }
    const std::int64_t id = next_id_++;
    request["id"] = id;
    Unprocessed unprocessed;
    auto answer = send_authorized(id, "initialize", json::serialize(request), deadline, nullptr, unprocessed);
    if (!answer) {
        spdlog::warn("{}: its session expired and initializing a new one failed: {}", label_, answer.error().message);
        return false;
    }
    adopt(*answer);
    return notify("notifications/initialized", {}, deadline);
}

Result<json::value> HttpChannel::call(std::string_view method, json::object params, Clock::time_point deadline,
                                      const std::atomic<bool>* cancelled) {
    {
        std::lock_guard lock(mutex_);
        if (closed_) return closed_error();
        if (in_flight_ >= limits_.max_pending) {
            return busy_error(label_, in_flight_, limits_.max_pending);
        }
        ++in_flight_;
        if (method == "initialize") {
            initialize_params_ = params;
            session_id_.clear();
            protocol_version_.clear();
        }
    }
    struct Leave {
        HttpChannel& channel;
        ~Leave() {
            std::lock_guard lock(channel.mutex_);
            --channel.in_flight_;
        }
    } leave{*this};
    const std::int64_t id = next_id_++;
    json::object request{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.empty()) request["params"] = std::move(params);
    const std::string body = json::serialize(request);
    Unprocessed unprocessed;
    auto answer = send_authorized(id, method, body, deadline, cancelled, unprocessed);
    if (unprocessed.expired) {
        // By the spec a 404 to a request with a session id was not processed: the one resend allowed.
        if (!renew_session(deadline)) {
            end("its session expired and a new one could not be initialized");
            return closed_error();
        }
        unprocessed = Unprocessed{};
        answer = send_authorized(id, method, body, deadline, cancelled, unprocessed);
        if (unprocessed.expired) {
            end("its session expired again right after it was renewed");
            return closed_error();
        }
    }
    if (answer && method == "initialize") adopt(*answer);
    return answer;
}

std::optional<HttpRefusal> HttpChannel::refusal_of(const Exchange& exchange) const {
    if (!endpoint_.authorizer || exchange.failure || (exchange.status != 401 && exchange.status != 403))
        return std::nullopt;
    return HttpRefusal{exchange.status, exchange.www_authenticate, endpoint_.url, exchange.sent_authorization};
}

Result<json::value> HttpChannel::send_authorized(std::int64_t id, std::string_view method, const std::string& body,
                                                 Clock::time_point deadline, const std::atomic<bool>* cancelled,
                                                 Unprocessed& unprocessed) {
    auto answer = send_request(id, method, body, deadline, cancelled, unprocessed);
    for (int authorized = 0; unprocessed.refused; ++authorized) {
        if (authorized == kMaxAuthorizations) {
            Error error = answer.error();
            error.message += " (still refused after " + std::to_string(kMaxAuthorizations) +
                             " authorizations; check the scopes the server asks for and the account's rights)";
            return error;
        }
        const HttpRefusal refusal = std::move(*unprocessed.refused);
        unprocessed.refused.reset();
        if (const Status answered = endpoint_.authorizer->answer(refusal, deadline); !answered) return answered.error();
        answer = send_request(id, method, body, deadline, cancelled, unprocessed);
    }
    return answer;
}

bool HttpChannel::notify(std::string_view method, json::object params, Clock::time_point deadline) {
    if (closed()) return false;
    json::object message{{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.empty()) message["params"] = std::move(params);
    const std::string text = json::serialize(message);
    auto exchange = std::make_unique<Exchange>();
    exchange->deadline = deadline;
    run_exchange(*exchange, "POST", text, "");
    if (auto refusal = refusal_of(*exchange)) {
        if (!endpoint_.authorizer->answer(*refusal, deadline)) return false;
        exchange = std::make_unique<Exchange>();
        exchange->deadline = deadline;
        run_exchange(*exchange, "POST", text, "");
    }
    const bool taken = !exchange->failure && exchange->status / 100 == 2;
    if (taken && method == "notifications/initialized") start_listening();
    return taken;
}

}  // namespace skillhost::upstream
