// MCP over Streamable HTTP on the daemon's /mcp: POST carries one JSON-RPC message (answered as
// JSON, or as an event stream when the client accepts one, so progress and elicitation requests
// can arrive before the response), GET opens the session's server stream (list_changed and other
// notifications), DELETE ends the session. Sessions are named by Mcp-Session-Id, belong to the
// token's user, and run mcp::McpSession, the same protocol code as `skillhost mcp` on stdio.
// Origin and Host are checked against DNS rebinding.
#pragma once

#include "app/host_runtime.hpp"
#include "mcp/mcp_session.hpp"
#include "server/api_request.hpp"
#include "server/event_channel.hpp"
#include "server/mcp_session_rows.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace skillhost::server {

struct McpHttpOptions {
    bool loopback_only = true;                       // the server listens on loopback: Host must name it
    std::vector<std::string> allowed_origins;        // besides http(s)://localhost|127.0.0.1|[::1][:port]
    std::chrono::milliseconds idle_expiry{3600000};  // sessions unused this long are closed
    // More: the user's least recently used idle session is closed to make room.
    std::size_t max_sessions_per_user = 32;
    std::chrono::minutes json_reply_limit{10};  // a JSON (non-streamed) POST waits this long at most
    // Reserves an event stream's place (HttpServer::reserve_stream) before a streamed request
    // reaches the session: a request refused for want of a stream never runs. Unset: streams are
    // counted when they open (tests without a server).
    std::function<StreamAdmission(const std::string& user_id, StreamKind kind)> reserve_stream;
    // Gives the place of a GET stream still open to a new one (HttpServer::take_over_stream): a
    // session's new GET stream replacing its old one, or a user's least recently used idle session
    // giving up its GET stream at the per-user limit.
    std::function<StreamSlot(const std::weak_ptr<StreamSlot::State>& old)> take_over_stream;
    // Several instances on PostgreSQL: sessions exist in this table, and an instance rebuilds a
    // session it does not hold from its row. Null: sessions live in this process only.
    std::shared_ptr<McpSessionRows> shared_sessions;
    // How often a session held here renews its row's last use (every request reads that the row
    // still exists, so a DELETE through another instance ends it here at once); at most a quarter
    // of idle_expiry.
    std::chrono::milliseconds shared_renew_interval{10000};
};

class McpHttpEndpoint {
public:
    // `host` must be a live runtime and outlive this.
    McpHttpEndpoint(app::HostRuntime& host, McpHttpOptions options);
    ~McpHttpEndpoint();

    Reply handle(ApiRequest& request);
    std::size_t session_count() const;
    // Closes every session (their calls are cancelled) and ends their streams.
    void close_all();

private:
    struct Session;

    Reply post(ApiRequest& request);
    Reply post_batch(ApiRequest& request, const boost::json::array& batch);
    Reply answer(ApiRequest& request, const std::shared_ptr<Session>& session, const std::string& key,
                 const std::function<void()>& hand_over);
    Reply open_stream(ApiRequest& request);
    Reply end_session(ApiRequest& request);
    Reply initialize(ApiRequest& request, const boost::json::value& message);
    std::shared_ptr<Session> session_for(ApiRequest& request);
    // A new session of `user` named `id`, not yet registered.
    std::shared_ptr<Session> make_session(const auth::UserContext& user, std::string id);
    // Hands `message` (an initialize request) to the session and returns its answer.
    std::string run_initialize(const std::shared_ptr<Session>& session, const boost::json::value& message);
    // Rebuilds a session another instance initialized, from its row, and registers it here.
    std::shared_ptr<Session> restore(ApiRequest& request, const McpSessionRow& row);
    void expire_idle();
    std::shared_ptr<Session> make_room(const std::string& user_id);
    // The place of a GET stream for `session`: its own GET stream's, else a new one, else (when
    // `may_evict`) the GET stream's of the user's least recently used idle session, which ends.
    // Throws the refusal.
    StreamSlot server_stream_slot(ApiRequest& request, const std::shared_ptr<Session>& session, bool may_evict);
    // The reserved place of a stream of `kind` for the request's user, or empty when the endpoint
    // reserves nothing (no reserve_stream). Throws the refusal.
    StreamSlot reserve(ApiRequest& request, StreamKind kind);
    static void close_session(const std::shared_ptr<Session>& session);
    // Closes a session made room for, and removes its row (PostgreSQL).
    void end_evicted(const std::shared_ptr<Session>& session);

    app::HostRuntime& host_;
    const McpHttpOptions options_;
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<Session>> sessions_;
};

}  // namespace skillhost::server
