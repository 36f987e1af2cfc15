#include "server/mcp_http.hpp"
#include "server/error_codes.hpp"

#include "mcp/json_rpc.hpp"
#include "mcp/protocol_version.hpp"
#include "server/api_services.hpp"
#include "server/mcp_stream_log.hpp"
#include "store/run_record.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace skillhost::server {

namespace json = boost::json;

struct McpHttpEndpoint::Session {
    std::string id;
    std::string user_id;
    std::chrono::steady_clock::time_point last_used = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point row_checked =
        std::chrono::steady_clock::now();  // guarded by the endpoint's mutex_
    std::mutex mutex;                      // guards waiting and server_stream
    // POSTed requests waiting for their response, by mcp::id_key of their JSON-RPC id.
    struct Waiting {
        std::shared_ptr<EventChannel> channel;  // answered as JSON: the response alone goes here
        std::uint64_t stream = 0;               // answered as an event stream (can carry messages before the response)
    };
    std::map<std::string, Waiting> waiting;
    McpStreamLog streams;                          // every event stream's events, for Last-Event-ID
    std::weak_ptr<EventChannel> server_stream;     // the GET stream, if open
    std::weak_ptr<StreamSlot::State> server_slot;  // its place among the user's streams
    std::uint64_t server_stream_number = 0;        // its number in `streams` (0: never opened)
    std::atomic<std::uint64_t> batches{0};         // names the batches POSTed, for `waiting`
    std::unique_ptr<mcp::McpSession> mcp;          // last: closed before the rest goes

    // Where a message from the server goes:
    // - a response: to the POST that asked;
    // - progress and requests to the client (elicitation) concern calls in flight: to the streamed
    //   POSTs waiting (the spec's "related to the originating request"), else the GET stream;
    // - a message naming its call (related_key: a tool's log line, sampling, elicitation): to that
    //   call's stream when it is streamed, else as above;
    // - anything else (tools/list_changed, log messages): to the GET stream.
    void route(const mcp::OutgoingMessage& message) {
        using Kind = mcp::OutgoingMessage::Kind;
        std::lock_guard lock(mutex);
        if (message.kind == Kind::response) {
            auto it = waiting.find(message.id_key);
            if (it != waiting.end()) {
                if (it->second.stream) {
                    streams.push(it->second.stream, "message", message.text, true);
                } else {
                    it->second.channel->push(StreamEvent{"message", message.text});
                    it->second.channel->close();
                }
                waiting.erase(it);
                return;
            }
        }
        // A message about one call (its log lines, its sampling or elicitation request) goes on that
        // call's stream when it is streamed.
        if (!message.related_key.empty()) {
            auto it = waiting.find(message.related_key);
            if (it != waiting.end() && it->second.stream) {
                streams.push(it->second.stream, "message", message.text, false);
                return;
            }
        }
        const bool concerns_calls = message.kind != Kind::notification || message.method == "notifications/progress";
        if (concerns_calls) {
            bool delivered = false;
            for (auto& [key, w] : waiting) {
                if (!w.stream) continue;
                streams.push(w.stream, "message", message.text, false);
                delivered = true;
            }
            if (delivered) return;
        }
        // Logged while the client is away too, so a resumed server stream gets what it missed.
        if (server_stream_number) streams.push(server_stream_number, "message", message.text, false);
    }

    // A client keeps the GET stream open (the stream log holds its channel after the client left,
    // so the channel's lifetime says nothing).
    bool watched() {
        std::lock_guard lock(mutex);
        auto stream = server_stream.lock();
        return stream && !stream->closed();
    }

    // A waiting request that will get no response (cancelled): its stream ends.
    void end_waiting(const std::string& key) {
        std::lock_guard lock(mutex);
        auto it = waiting.find(key);
        if (it == waiting.end()) return;
        if (it->second.stream)
            streams.finish(it->second.stream);
        else
            it->second.channel->close();
        waiting.erase(it);
    }

    // Priming events only for clients of 2025-11-25 and later (what the official SDK's server does):
    // older clients parse every event's data as JSON, and an empty one is an error to them.
    bool primes() const { return mcp->protocol_version() >= "2025-11-25"; }

    // Ends the GET stream (its place was given to another stream); the session goes on, and its
    // client may open the GET stream again.
    void end_server_stream() {
        std::lock_guard lock(mutex);
        if (auto stream = server_stream.lock()) stream->close();
        server_stream.reset();
        server_slot.reset();
    }

    // Ends every stream of the session (DELETE, expiry, shutdown).
    void close_streams() {
        std::lock_guard lock(mutex);
        for (auto& [key, w] : waiting)
            if (w.channel) w.channel->close();
        waiting.clear();
        streams.finish_all();
        if (auto stream = server_stream.lock()) stream->close();
    }
};

namespace {

Response rpc_error_response(http::status status, int code, std::string message) {
    return json_response(status,
                         json::object{{"jsonrpc", "2.0"},
                                      {"id", nullptr},
                                      {"error", json::object{{"code", code}, {"message", std::move(message)}}}});
}

std::string host_name(std::string_view host) {
    if (!host.empty() && host.front() == '[') {
        const auto close = host.find(']');
        return std::string(host.substr(0, close == std::string_view::npos ? host.size() : close + 1));
    }
    return std::string(host.substr(0, host.find(':')));
}

bool is_loopback_name(std::string_view name) {
    if (name == "localhost" || name == "[::1]") return true;
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(std::string(name), ec);
    return !ec && address.is_loopback();
}

// "http://localhost:8787" -> "localhost"; empty when it is not an http(s) origin.
std::string origin_host(std::string_view origin) {
    for (std::string_view scheme : {"http://", "https://"}) {
        if (origin.rfind(scheme, 0) == 0) return host_name(origin.substr(scheme.size()));
    }
    return {};
}

}  // namespace

namespace {

// A row renewed less often than it expires would end a session in use: renewed at least four
// times per idle expiry, a session used (or watched) within it never reads as expired.
McpHttpOptions renewing_within_expiry(McpHttpOptions options) {
    options.shared_renew_interval =
        std::max(std::chrono::milliseconds(1), std::min(options.shared_renew_interval, options.idle_expiry / 4));
    return options;
}

}  // namespace

McpHttpEndpoint::McpHttpEndpoint(app::HostRuntime& host, McpHttpOptions options)
    : host_(host), options_(renewing_within_expiry(std::move(options))) {}

McpHttpEndpoint::~McpHttpEndpoint() {
    close_all();
}

std::size_t McpHttpEndpoint::session_count() const {
    std::lock_guard lock(mutex_);
    return sessions_.size();
}

void McpHttpEndpoint::close_all() {
    std::map<std::string, std::shared_ptr<Session>> sessions;
    {
        std::lock_guard lock(mutex_);
        sessions.swap(sessions_);
    }
    for (auto& [id, session] : sessions) {
        session->mcp->close();
        session->close_streams();
    }
}

void McpHttpEndpoint::expire_idle() {
    std::vector<std::shared_ptr<Session>> expired;
    std::vector<std::string> renew;
    {
        std::lock_guard lock(mutex_);
        const auto now = std::chrono::steady_clock::now();
        for (auto it = sessions_.begin(); it != sessions_.end();) {
            const bool watched = it->second->watched();  // an open GET stream is use
            if (now - it->second->last_used > options_.idle_expiry && it->second->mcp->calls_in_flight() == 0 &&
                !watched) {
                expired.push_back(it->second);
                it = sessions_.erase(it);
                continue;
            }
            // In use without requests (a stream open, a call running): its row must not expire either.
            if (options_.shared_sessions && now - it->second->row_checked >= options_.shared_renew_interval &&
                (watched || it->second->mcp->calls_in_flight() != 0)) {
                it->second->row_checked = now;
                renew.push_back(it->first);
            }
            ++it;
        }
    }
    for (auto& s : expired) close_session(s);
    for (const auto& id : renew) {
        if (auto renewed = options_.shared_sessions->touch(id); !renewed)
            spdlog::warn("mcp: renewing session {} failed: {}", id, renewed.error().message);
    }
}

void McpHttpEndpoint::end_evicted(const std::shared_ptr<Session>& session) {
    if (!session) return;
    close_session(session);
    // Closed to make room, it is over everywhere: its row would otherwise bring it back on the next request.
    if (options_.shared_sessions) {
        if (auto removed = options_.shared_sessions->remove(session->id); !removed)
            spdlog::warn("mcp: ending session {} failed: {}", session->id, removed.error().message);
    }
}

Reply McpHttpEndpoint::handle(ApiRequest& req) {
    expire_idle();  // so an expired session is gone before anyone looks it up
    // DNS rebinding: a browser page from elsewhere must not reach a loopback server.
    const std::string host = host_name(std::string_view(req.raw[http::field::host]));
    if (options_.loopback_only && !is_loopback_name(host)) {
        Error e{errors::kHostNotAllowed,
                "the Host header '" + host + "' does not name this server (localhost, 127.0.0.1 or [::1])",
                {},
                {}};
        throw ApiFailure(std::move(e));
    }
    const std::string origin(req.raw[http::field::origin]);
    if (!origin.empty()) {
        const bool listed = std::find(options_.allowed_origins.begin(), options_.allowed_origins.end(), origin) !=
                            options_.allowed_origins.end();
        if (!listed && !is_loopback_name(origin_host(origin))) {
            Error e{errors::kOriginNotAllowed,
                    "requests from origin '" + origin + "' are not allowed",
                    {},
                    {"only pages served from this machine may call /mcp from a browser"}};
            throw ApiFailure(std::move(e));
        }
    }
    const std::string version(req.raw["MCP-Protocol-Version"]);
    if (!version.empty() && std::find(mcp::kSupportedProtocolVersions.begin(), mcp::kSupportedProtocolVersions.end(),
                                      version) == mcp::kSupportedProtocolVersions.end()) {
        return rpc_error_response(http::status::bad_request, mcp::rpc_code::invalid_request,
                                  "unsupported MCP-Protocol-Version '" + version +
                                      "'; this server speaks 2025-11-25, 2025-06-18 and 2025-03-26");
    }
    switch (req.raw.method()) {
        case http::verb::post: return post(req);
        case http::verb::get: return open_stream(req);
        default: return end_session(req);
    }
}

std::shared_ptr<McpHttpEndpoint::Session> McpHttpEndpoint::session_for(ApiRequest& req) {
    const std::string id(req.raw["Mcp-Session-Id"]);
    if (id.empty()) {
        Error e{errors::kMcpSessionRequired,
                "this request needs the Mcp-Session-Id header from the initialize response",
                {},
                {}};
        throw ApiFailure(std::move(e));
    }
    const auto not_found = [&id] {
        Error e{errors::kMcpSessionNotFound,
                "no MCP session " + id + " (it ended or expired); initialize a new one",
                {},
                {}};
        return ApiFailure(std::move(e));
    };
    std::shared_ptr<Session> held;
    bool renew_row = false;
    {
        std::lock_guard lock(mutex_);
        auto it = sessions_.find(id);
        if (it != sessions_.end()) {
            if (it->second->user_id != req.user->user_id) throw not_found();
            held = it->second;
            const auto now = std::chrono::steady_clock::now();
            held->last_used = now;
            renew_row = options_.shared_sessions && now - held->row_checked >= options_.shared_renew_interval;
            if (renew_row) held->row_checked = now;
        }
    }
    if (held && options_.shared_sessions) {
        // Notices a session ended (or expired) through another instance; renews it now and then.
        auto alive = renew_row ? options_.shared_sessions->touch(id) : options_.shared_sessions->exists(id);
        if (alive && !alive.value()) {
            {
                std::lock_guard lock(mutex_);
                sessions_.erase(id);
            }
            close_session(held);
            throw not_found();
        }
        if (!alive) spdlog::warn("mcp: renewing session {} failed: {}", id, alive.error().message);
    }
    if (held) return held;
    if (!options_.shared_sessions) throw not_found();
    auto row = options_.shared_sessions->find(id);
    if (!row) throw ApiFailure(row.error());
    if (!row.value() || row.value()->user_id != req.user->user_id) throw not_found();
    return restore(req, *row.value());
}

std::shared_ptr<McpHttpEndpoint::Session> McpHttpEndpoint::make_session(const auth::UserContext& user, std::string id) {
    auto session = std::make_shared<Session>();
    session->id = std::move(id);
    session->user_id = user.user_id;
    Session* raw = session.get();
    mcp::McpSessionOptions session_options;
    session_options.client_sampling = host_.config().server.mcp_client_sampling;
    session_options.playbooks = host_.playbooks();
    session->mcp =
        std::make_unique<mcp::McpSession>(host_.calls(), host_.live_catalog()->catalog(), user, session_options,
                                          [raw](const mcp::OutgoingMessage& out) { raw->route(out); });
    return session;
}

std::string McpHttpEndpoint::run_initialize(const std::shared_ptr<Session>& session, const json::value& message) {
    auto channel = std::make_shared<EventChannel>();
    {
        std::lock_guard lock(session->mutex);
        session->waiting[mcp::id_key(message.at("id"))] = Session::Waiting{channel, 0};
    }
    session->mcp->handle_message(message);
    auto reply = channel->next(std::chrono::seconds(10));
    if (!reply) {
        close_session(session);
        throw ApiFailure(Error{errors::kInternal, "the MCP session did not answer initialize", {}, {}});
    }
    return std::move(reply->data);
}

std::shared_ptr<McpHttpEndpoint::Session> McpHttpEndpoint::restore(ApiRequest& req, const McpSessionRow& row) {
    auto session = make_session(*req.user, row.id);
    // Its streams are numbered past any its earlier life (another instance, or this daemon before a
    // restart) can have given in the time since: a stream's number grows by far less than one a
    // millisecond.
    session->streams.number_from(static_cast<std::uint64_t>(store::unix_ms_now()));
    // The same initialize the client sent to the instance that created the session: the same
    // negotiated version and client capabilities (elicitation, sampling) here.
    const json::value initialize{
        {"jsonrpc", "2.0"}, {"id", "restore"}, {"method", "initialize"}, {"params", row.initialize_params}};
    json::value answer = json::parse(run_initialize(session, initialize));
    if (answer.as_object().contains("error")) {
        close_session(session);
        spdlog::warn("mcp: session {} cannot be rebuilt here: {}", row.id, json::serialize(answer));
        Error e{errors::kMcpSessionNotFound,
                "MCP session " + row.id + " cannot be continued on this server; initialize a new one",
                {},
                {}};
        throw ApiFailure(std::move(e));
    }
    session->mcp->handle_message(json::value{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    std::shared_ptr<Session> evicted;
    std::shared_ptr<Session> existing;
    try {
        std::lock_guard lock(mutex_);
        auto it = sessions_.find(row.id);
        if (it != sessions_.end()) {
            existing = it->second;  // a concurrent request rebuilt it first
        } else {
            evicted = make_room(req.user->user_id);
            sessions_[row.id] = session;
        }
    } catch (const ApiFailure&) {
        close_session(session);
        throw;
    }
    end_evicted(evicted);
    if (existing) {
        close_session(session);
        return existing;
    }
    return session;
}

// Called with mutex_ held. At the per-user limit the least recently used idle session (no call in
// flight, no open server stream) makes room, else the least recently used one without a call in
// flight (its server stream ends: a client only listening there starts a new session on the 404);
// when every session has a call in flight the new one is refused.
std::shared_ptr<McpHttpEndpoint::Session> McpHttpEndpoint::make_room(const std::string& user_id) {
    std::size_t mine = 0;
    std::shared_ptr<Session> oldest_idle;
    std::shared_ptr<Session> oldest_listening;
    const auto older = [](const std::shared_ptr<Session>& a, const std::shared_ptr<Session>& b) {
        return !b || a->last_used < b->last_used;
    };
    for (const auto& [id, session] : sessions_) {
        if (session->user_id != user_id) continue;
        ++mine;
        if (session->mcp->calls_in_flight() != 0) continue;
        auto& oldest = session->watched() ? oldest_listening : oldest_idle;
        if (older(session, oldest)) oldest = session;
    }
    if (mine < options_.max_sessions_per_user) return nullptr;
    auto evicted = oldest_idle ? oldest_idle : oldest_listening;
    if (!evicted) {
        Error e{errors::kTooManySessions,
                "user " + user_id + " has " + std::to_string(mine) +
                    " MCP sessions (server.mcp_sessions_per_user) and every one has a call in flight",
                {},
                {"end unused sessions with DELETE /mcp, or wait for a call to finish"}};
        throw ApiFailure(std::move(e));
    }
    sessions_.erase(evicted->id);
    return evicted;
}

void McpHttpEndpoint::close_session(const std::shared_ptr<Session>& session) {
    if (!session) return;
    session->mcp->close();
    session->close_streams();
}

Reply McpHttpEndpoint::initialize(ApiRequest& req, const json::value& message) {
    expire_idle();
    std::shared_ptr<Session> evicted;
    {
        std::lock_guard lock(mutex_);
        evicted = make_room(req.user->user_id);
    }
    end_evicted(evicted);
    auto session = make_session(*req.user, store::new_id("mcp"));
    const std::string reply = run_initialize(session, message);
    json::value parsed = json::parse(reply);
    if (parsed.as_object().contains("error")) {
        close_session(session);
        return json_response(http::status::ok, parsed);
    }
    if (options_.shared_sessions) {
        const json::value* params = message.as_object().if_contains("params");
        McpSessionRow row{session->id, req.user->user_id,
                          params && params->is_object() ? params->as_object() : json::object()};
        if (auto recorded = options_.shared_sessions->insert(row); !recorded) {
            close_session(session);
            throw ApiFailure(recorded.error());
        }
    }
    try {
        std::lock_guard lock(mutex_);
        evicted = make_room(req.user->user_id);  // another initialize of the same user may have come first
        sessions_[session->id] = session;
    } catch (const ApiFailure&) {
        close_session(session);
        throw;
    }
    end_evicted(evicted);
    Response r = text_response(http::status::ok, reply, "application/json");
    r.set("Mcp-Session-Id", session->id);
    return r;
}

Reply McpHttpEndpoint::post(ApiRequest& req) {
    json::value message;
    boost::system::error_code ec;
    message = json::parse(req.raw.body(), ec);
    if (ec)
        return rpc_error_response(http::status::bad_request, mcp::rpc_code::parse_error,
                                  "the body is not JSON: " + ec.message());
    if (message.is_array()) return post_batch(req, message.as_array());
    if (!message.is_object()) {
        return rpc_error_response(http::status::bad_request, mcp::rpc_code::invalid_request,
                                  "the body must be one JSON-RPC message, or a batch (an array) in a session that "
                                  "negotiated MCP 2025-03-26");
    }
    const auto& obj = message.as_object();
    const json::value* method = obj.if_contains("method");
    const json::value* id = obj.if_contains("id");
    if (method && method->is_string() && method->as_string() == "initialize" && id) return initialize(req, message);

    auto session = session_for(req);
    if (!method || !id) {
        // A notification, or the client's response to our request (elicitation): accepted.
        session->mcp->handle_message(message);
        if (method && method->is_string() && method->as_string() == "notifications/cancelled") {
            // A cancelled request gets no response: end the stream that waits for it.
            const auto* params = obj.if_contains("params");
            const auto* request_id =
                params && params->is_object() ? params->as_object().if_contains("requestId") : nullptr;
            if (request_id) session->end_waiting(mcp::id_key(*request_id));
        }
        Response r{http::status::accepted, req.raw.version()};
        r.set(http::field::server, "skillhost");
        return r;
    }
    return answer(req, session, mcp::id_key(*id), [&] { session->mcp->handle_message(message); });
}

Reply McpHttpEndpoint::post_batch(ApiRequest& req, const json::array& batch) {
    auto session = session_for(req);
    if (session->mcp->protocol_version() != "2025-03-26") {
        return rpc_error_response(http::status::bad_request, mcp::rpc_code::invalid_request,
                                  "JSON-RPC batches are accepted only in sessions that negotiated MCP 2025-03-26 "
                                  "(2025-06-18 removed them); POST each message on its own");
    }
    // Never an id_key ("s:..." / "n:..."), so it cannot meet a request's own id in `waiting`.
    const std::string key = "batch-" + std::to_string(++session->batches);
    if (!mcp::batch_expects_answer(batch)) {
        session->mcp->handle_batch(batch, key);
        Response r{http::status::accepted, req.raw.version()};
        r.set(http::field::server, "skillhost");
        return r;
    }
    return answer(req, session, key, [&] { session->mcp->handle_batch(batch, key); });
}

// Registers the POST as waiting for the response routed under `key`, hands the message to the
// session, and answers with an event stream or with the response alone as JSON.
Reply McpHttpEndpoint::answer(ApiRequest& req, const std::shared_ptr<Session>& session, const std::string& key,
                              const std::function<void()>& hand_over) {
    const bool streamed = req.wants_event_stream();
    // The stream's place is reserved before the session sees the request: refused, nothing runs;
    // admitted, nothing can refuse the stream afterwards.
    StreamSlot slot = streamed ? reserve(req, StreamKind::reply) : StreamSlot{};
    auto channel = std::make_shared<EventChannel>();
    {
        std::lock_guard lock(session->mutex);
        if (session->waiting.contains(key)) {
            return rpc_error_response(
                http::status::bad_request, mcp::rpc_code::invalid_request,
                "a request with id " + key.substr(2) + " is still in flight in this session; use a new id");
        }
        session->waiting[key] = streamed ? Session::Waiting{nullptr, session->streams.open(channel, session->primes())}
                                         : Session::Waiting{channel, 0};
    }
    hand_over();
    if (streamed) {
        StreamResponse stream = stream_channel(channel);
        stream.slot = std::move(slot);
        stream.headers.emplace_back("Mcp-Session-Id", session->id);
        return stream;
    }
    // JSON only: wait for the response itself (route() gives a channel that is not streamed nothing
    // else, so its first event is the response).
    const auto deadline = std::chrono::steady_clock::now() + options_.json_reply_limit;
    while (std::chrono::steady_clock::now() < deadline) {
        auto event = channel->next(std::chrono::milliseconds(500));
        if (!event) {
            if (channel->ended()) break;
            continue;
        }
        Response r = text_response(http::status::ok, event->data, "application/json");
        r.set("Mcp-Session-Id", session->id);
        return r;
    }
    {
        std::lock_guard lock(session->mutex);
        session->waiting.erase(key);
    }
    return rpc_error_response(http::status::gateway_timeout, mcp::rpc_code::internal_error, "no response in time");
}

Reply McpHttpEndpoint::open_stream(ApiRequest& req) {
    auto session = session_for(req);
    if (!req.wants_event_stream()) {
        Error e{
            errors::kNotAcceptable, "GET /mcp opens the server's event stream; send Accept: text/event-stream", {}, {}};
        throw ApiFailure(std::move(e));
    }
    std::string last_event_id(req.raw["Last-Event-ID"]);
    std::uint64_t server_number = 0;
    bool from_earlier_life = false;
    {
        std::lock_guard lock(session->mutex);
        server_number = session->server_stream_number;
        const std::uint64_t named = McpStreamLog::stream_of(last_event_id);
        from_earlier_life = named != 0 && named < session->streams.first_stream();
    }
    // A new GET stream may make room by ending an idle session's; a resumption may not.
    const bool new_stream = last_event_id.empty();
    // An id from before the session was rebuilt here (a restart): its events are gone with that
    // daemon, but the client wants its server stream back; it gets a new one rather than a 410.
    if (from_earlier_life) last_event_id.clear();
    // A resumed request's stream is a reply stream; the server stream (new or resumed) is lasting.
    const bool server_stream = last_event_id.empty() || McpStreamLog::stream_of(last_event_id) == server_number;
    StreamSlot slot = server_stream ? server_stream_slot(req, session, new_stream) : reserve(req, StreamKind::reply);
    auto channel = std::make_shared<EventChannel>();
    {
        std::lock_guard lock(session->mutex);
        if (!last_event_id.empty()) {
            // Resumption of a stream that lost its connection: what it missed, then the rest of it.
            auto resumed = session->streams.resume(last_event_id, channel);
            if (!resumed) {
                throw ApiFailure(resumed.error());
            }
            if (*resumed == session->server_stream_number) {
                session->server_stream = channel;
                session->server_slot = slot.watch();
            }
        } else {
            if (auto old = session->server_stream.lock()) old->close();  // one server stream per session
            if (session->server_stream_number) session->streams.finish(session->server_stream_number);
            session->server_stream_number = session->streams.open(channel, session->primes());
            session->server_stream = channel;
            session->server_slot = slot.watch();
        }
    }
    StreamResponse stream = stream_channel(channel);
    stream.slot = std::move(slot);
    stream.headers.emplace_back("Mcp-Session-Id", session->id);
    return stream;
}

StreamSlot McpHttpEndpoint::reserve(ApiRequest& req, StreamKind kind) {
    if (!options_.reserve_stream) return {};
    auto admission = options_.reserve_stream(req.user->user_id, kind);
    if (!admission) throw ApiFailure(std::move(admission.error));
    return std::move(admission.slot);
}

StreamSlot McpHttpEndpoint::server_stream_slot(ApiRequest& req, const std::shared_ptr<Session>& session,
                                               bool may_evict) {
    if (!options_.reserve_stream) return {};
    // A new GET stream of the session replaces its old one: it takes the old one's place.
    std::weak_ptr<StreamSlot::State> own;
    {
        std::lock_guard lock(session->mutex);
        own = session->server_slot;
    }
    if (options_.take_over_stream) {
        if (StreamSlot taken = options_.take_over_stream(own)) return taken;
    }
    auto admission = options_.reserve_stream(req.user->user_id, StreamKind::lasting);
    if (admission) return std::move(admission.slot);
    if (!may_evict) throw ApiFailure(std::move(admission.error));
    // At the limit: the user's least recently used idle session (no call in flight) gives up its GET
    // stream, so a stream its client abandoned cannot lock the user out. Its session goes on. Only a
    // new GET stream does this: a client resuming the stream it lost is refused instead, so clients
    // that reconnect on their own cannot take each other's place in turn forever.
    std::vector<std::pair<std::chrono::steady_clock::time_point, std::shared_ptr<Session>>> idle;
    {
        std::lock_guard lock(mutex_);  // guards last_used
        for (const auto& [id, other] : sessions_) {
            if (other == session || other->user_id != req.user->user_id) continue;
            if (other->mcp->calls_in_flight() != 0 || !other->watched()) continue;
            idle.emplace_back(other->last_used, other);
        }
    }
    std::sort(idle.begin(), idle.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [used, other] : idle) {
        std::weak_ptr<StreamSlot::State> theirs;
        {
            std::lock_guard lock(other->mutex);
            theirs = other->server_slot;
        }
        StreamSlot taken = options_.take_over_stream ? options_.take_over_stream(theirs) : StreamSlot{};
        if (!taken) continue;  // that stream ended meanwhile (and gave its place back to someone)
        spdlog::info("mcp: session {} gives its GET stream's place to session {} (server.max_streams_per_user)",
                     other->id, session->id);
        other->end_server_stream();
        return taken;
    }
    throw ApiFailure(std::move(admission.error));
}

Reply McpHttpEndpoint::end_session(ApiRequest& req) {
    auto session = session_for(req);
    if (options_.shared_sessions) {
        if (auto removed = options_.shared_sessions->remove(session->id); !removed) throw ApiFailure(removed.error());
    }
    {
        std::lock_guard lock(mutex_);
        sessions_.erase(session->id);
    }
    session->mcp->close();
    session->close_streams();
    Response r{http::status::no_content, req.raw.version()};
    r.set(http::field::server, "skillhost");
    return r;
}

}  // namespace skillhost::server
