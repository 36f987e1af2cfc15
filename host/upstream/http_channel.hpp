// One MCP session over the Streamable HTTP transport (spec 2025-06-18): every JSON-RPC message the
// client sends is a POST to the server's URL, answered by a JSON body or by a stream of server-sent
// events carrying the answer and whatever the server sends before it (its requests: ping, roots,
// sampling; its notifications). The session id the server gives with the initialize answer goes
// with every later request, and the protocol version agreed there too; closing the channel ends the
// session (DELETE).
//
// A request written is never sent again, with the one exception the spec allows: a 404 to a
// request carrying a session id means the session expired and the request was not processed, so the
// session is initialized again once and that one request resent. An event stream that ends before
// the answer, after events with ids, is resumed with a GET carrying Last-Event-ID after the
// stream's `retry:` time (at most kMaxResumptions times for one request): the request is not resent.
//
// After the handshake a GET opens the stream the server may send its own requests and
// notifications on, outside any call (a server that answers 405 has none; it is not asked again);
// the handshake waits until that stream's response has begun (at most 5 s), so what the server sends
// there about the next request has somewhere to go. An answer that arrives on a stream other than
// its call's (some servers send it on the GET stream) still ends that call.
//
// A request the server refuses with 401 (or 403 naming missing scope) goes to the endpoint's
// authorizer when it has one (an OAuth client): once that has a new credential the request is sent
// again, at most kMaxAuthorizations times for one call; a refusal was not processed.
//
// Bounded: a JSON body or one event over max_message_bytes fails its call naming the limit (the
// session goes on), a stream carries at most 16 × max_message_bytes, max_pending calls at once,
// notifications past their rate are dropped. Threads: call() and notify() run their HTTP exchange
// on the caller's thread, and the handlers run there too while the answer is read; the GET stream
// has one thread of its own, joined by the destructor.
#pragma once

#include "base/error.hpp"
#include "upstream/http_authorizer.hpp"
#include "upstream/notification_rate.hpp"
#include "upstream/transport.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace skillhost::upstream {

struct HttpEndpoint {
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;  // sent with every request, as declared
    std::shared_ptr<HttpAuthorizer> authorizer;                // none: a refusal fails the call
};

struct HttpCounters {
    std::uint64_t noise_events = 0;           // events whose data is not a JSON-RPC message
    std::uint64_t dropped_notifications = 0;  // over the rate
    std::uint64_t unmatched_answers = 0;      // answers to no call of that exchange
    std::uint64_t sessions_renewed = 0;       // expired sessions initialized again
    std::uint64_t resumptions = 0;            // event streams resumed with Last-Event-ID
};

class HttpChannel final : public Transport {
public:
    static constexpr int kMaxResumptions = 3;
    static constexpr int kMaxAuthorizations = 3;

    // `label` names the server in messages ("MCP server 'weather'").
    HttpChannel(std::string label, HttpEndpoint endpoint, RpcLimits limits, RpcHandlers handlers);
    ~HttpChannel() override;
    HttpChannel(const HttpChannel&) = delete;
    HttpChannel& operator=(const HttpChannel&) = delete;

    Result<boost::json::value> call(std::string_view method, boost::json::object params, Clock::time_point deadline,
                                    const std::atomic<bool>* cancelled = nullptr) override;
    bool notify(std::string_view method, boost::json::object params, Clock::time_point deadline) override;
    // Ends the session: calls in flight fail with UPSTREAM_CLOSED, and the server is told (DELETE).
    void close(const std::string& reason) override;
    bool closed() const override;
    std::string closed_reason() const override;

    std::string session_id() const;
    HttpCounters counters() const;

private:
    struct Exchange;
    struct Routed;
    // Why a request was not processed, so that it may be sent again.
    struct Unprocessed {
        bool expired = false;                // the server said the session is gone (404)
        std::optional<HttpRefusal> refused;  // 401/403 with an authorizer to answer it
    };

    // One request and its answer, resuming its event stream when it ends early.
    Result<boost::json::value> send_request(std::int64_t id, std::string_view method, const std::string& body,
                                            Clock::time_point deadline, const std::atomic<bool>* cancelled,
                                            Unprocessed& unprocessed);
    // The request, sent again while the authorizer answers its refusals (kMaxAuthorizations).
    Result<boost::json::value> send_authorized(std::int64_t id, std::string_view method, const std::string& body,
                                               Clock::time_point deadline, const std::atomic<bool>* cancelled,
                                               Unprocessed& unprocessed);
    std::optional<HttpRefusal> refusal_of(const Exchange& exchange) const;
    void run_exchange(Exchange& exchange, const std::string& http_method, const std::string& body,
                      const std::string& last_event_id);
    void on_message(const boost::json::value& message, Exchange& exchange);
    void answer_server(const boost::json::value& id, Result<boost::json::value> result);
    bool renew_session(Clock::time_point deadline);
    void adopt(const boost::json::value& initialize_answer);  // the protocol version agreed
    void end(const std::string& reason);                      // closed, without telling the server
    void start_listening();
    void listen();       // the GET stream's thread
    void note_opened();  // its response began (or it failed): start_listening() returns
    std::vector<std::pair<std::string, std::string>> request_headers(bool post) const;
    Error closed_error() const;
    Error status_error(int status, const std::string& body) const;

    const std::string label_;
    const HttpEndpoint endpoint_;
    const RpcLimits limits_;
    const RpcHandlers handlers_;

    mutable std::mutex mutex_;
    std::string session_id_;
    std::string protocol_version_;
    boost::json::object initialize_params_;  // what the session was initialized with, to renew it
    bool closed_ = false;
    std::string closed_reason_;
    std::atomic<bool> closing_{false};
    std::atomic<std::int64_t> next_id_{1};
    std::size_t in_flight_ = 0;
    HttpCounters counters_;
    NotificationRate rate_{limits_.notifications_per_second};
    std::map<std::int64_t, std::shared_ptr<Routed>> routed_;  // the calls waiting, by id
    bool listening_ = false;
    bool listen_opened_ = false;
    std::condition_variable opened_;
    std::thread listener_;
};

}  // namespace skillhost::upstream
