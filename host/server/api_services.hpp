// What the API handlers work with, and the route families each file registers.
#pragma once

#include "app/approval_actions.hpp"
#include "app/host_runtime.hpp"
#include "app/operator_runtime.hpp"
#include "config/host_config.hpp"
#include "server/api_request.hpp"
#include "server/event_channel.hpp"
#include "server/idempotent_replies.hpp"
#include "server/metrics.hpp"
#include "server/route_table.hpp"
#include "server/run_hub.hpp"

#include <boost/json/object.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

namespace skillhost::server {

struct ApiServices {
    app::HostRuntime& host;
    app::OperatorRuntime& operators;
    RunHub& runs;
    Metrics& metrics;
    std::function<MetricGauges()> gauges;
    // {ready, checks: {...}}: plugins loaded, database writable, model roles reachable.
    std::function<boost::json::object()> readiness;
    // Reserves the place of an event stream of the user (HttpServer::reserve_stream), before a
    // streamed run starts: a refused stream never leaves a run the client cannot see.
    std::function<StreamAdmission(const std::string& user_id, StreamKind kind)> reserve_stream;
    // Set when shutdown's grace period is over: every skill call the API started is cancelled, so
    // no call keeps the daemon past server.shutdown_grace_ms.
    std::shared_ptr<std::atomic<bool>> stop_calls;
    // The daemon's limits (server: in skillhost.yaml): max_call_timeout, audit_page_limit, ...
    const config::ServerSettings& settings;
    // The first answers to Idempotency-Key requests (POST /v1/skills/{id}/call, POST /v1/runs).
    IdempotentReplies& idempotent;
    // Skill calls running on the handler thread that took their request (api_skills.cpp): at most
    // half of server.handler_threads, so hung plugins can never hold every handler.
    std::atomic<unsigned> calls_on_handler_threads{0};
};

// With an Idempotency-Key header: the first answer to it (a retry), a refusal, or the claim this
// request answers under (Claim::finish keeps its answer). Without one: nothing to do.
IdempotentReplies::Begun begin_idempotent(ApiServices& s, ApiRequest& req, std::string_view endpoint);

void add_skill_routes(RouteTable& routes, ApiServices& services);              // /v1/skills, /v1/catalog
void add_run_routes(RouteTable& routes, ApiServices& services);                // /v1/runs
void add_approval_routes(RouteTable& routes, ApiServices& services);           // /v1/approvals
void add_audit_routes(RouteTable& routes, ApiServices& services);              // /v1/audit
void add_elicitation_routes(RouteTable& routes, ApiServices& services);        // /v1/elicitations
void add_definition_change_routes(RouteTable& routes, ApiServices& services);  // /v1/definition_changes
void add_secret_routes(RouteTable& routes, ApiServices& services);             // /v1/secrets
void add_health_routes(RouteTable& routes, ApiServices& services);             // /healthz /readyz /metrics /v1/whoami

// An SSE response that forwards `channel` until it ends, with a heartbeat every 15 s (so a client
// that left is noticed). When the server stops first, the stream just closes. `numbered`: the ids
// are increasing numbers (a run's event log) and an event whose number was already sent, or is at
// most `client_has` (its Last-Event-ID), is dropped.
StreamResponse stream_channel(std::shared_ptr<EventChannel> channel, bool numbered = false,
                              std::int64_t client_has = 0);

// A paused run resumes in the run hub (through `resume`), so its event streams continue.
app::RunResumer hub_resumer(ApiServices& s, Status (RunHub::*resume)(const std::string& run_id));

// Owners see everything; other users only what is theirs.
bool may_see(const auth::UserContext& user, std::string_view owner_id);

}  // namespace skillhost::server
