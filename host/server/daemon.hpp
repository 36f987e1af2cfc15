// `skillhost serve`: the HTTP API over a live host runtime. Owns the HTTP server, the run hub,
// the metrics and the authenticator; answers every request as its token's user, through the same
// call pipeline, policy and approval queue as the CLI.
#pragma once

#include "app/host_runtime.hpp"
#include "app/operator_runtime.hpp"
#include "app/per_instance_state_warning.hpp"
#include "app/shared_state_sweeper.hpp"
#include "base/error.hpp"
#include "config/host_config.hpp"
#include "server/http_server.hpp"
#include "server/idempotent_replies.hpp"
#include "server/mcp_http.hpp"
#include "server/metrics.hpp"
#include "server/readiness.hpp"
#include "server/route_table.hpp"
#include "server/run_event_wakeups.hpp"
#include "server/run_hub.hpp"
#include "server/token_auth.hpp"
#include "store/run_event_log.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

namespace skillhost::server {

struct ApiServices;

class Daemon {
public:
    // `host` must be a live runtime (app::RuntimeOptions::live_catalog) and outlive the daemon.
    // Errors: REMOTE_BIND_NOT_ALLOWED, OPERATOR_CONFIG_INVALID, DATABASE_ERROR, ...
    static Result<std::unique_ptr<Daemon>> create(app::HostRuntime& host, config::ServerSettings settings);
    ~Daemon();

    // Creates the owner token if none exists, then binds and starts serving. BIND_FAILED, ...
    Status start();
    std::uint16_t port() const { return server_->bound_port(); }
    // Where the owner token was written on this start, if it was created now.
    const std::optional<std::filesystem::path>& owner_token_file() const { return owner_token_file_; }

    // Graceful stop: refuse new connections and runs, let in-flight requests and runs finish for up
    // to shutdown_grace, cancel the runs still working (they are saved `cancelled`), end the event
    // streams, join every thread. Idempotent.
    void shutdown();

    // Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and every thread it starts later.
    // Call before anything starts threads; then wait_for_stop_signal() handles them.
    static void block_signals();
    // Waits for SIGTERM or SIGINT; each SIGHUP meanwhile rescans the plugin directories.
    void wait_for_stop_signal();

private:
    // Runs the shutdown stopped: saved interrupted instead of cancelled.
    void save_interrupted(const std::vector<std::string>& run_ids);
    Daemon(app::HostRuntime& host, config::ServerSettings settings);
    Reply dispatch(Request& request);
    Response error_reply(const Error& error, unsigned version);
    MetricGauges gauges() const;

    app::HostRuntime& host_;
    const config::ServerSettings settings_;
    app::OperatorRuntime operators_;
    std::unique_ptr<auth::ApiTokenStore> tokens_;
    std::unique_ptr<TokenAuthenticator> auth_;
    Metrics metrics_;
    app::PerInstanceStateWarning state_warning_;
    std::unique_ptr<store::RunEventLog> run_events_;  // every event of the runs driven here
    std::unique_ptr<RunHub> runs_;
    std::unique_ptr<RunEventWakeups> run_wakeups_;  // PostgreSQL: wakes streams of runs driven elsewhere
    std::unique_ptr<ReadinessCheck> readiness_;
    std::unique_ptr<IdempotentReplies> idempotent_;
    std::unique_ptr<ApiServices> services_;
    std::unique_ptr<McpHttpEndpoint> mcp_;
    RouteTable routes_;
    std::unique_ptr<HttpServer> server_;
    std::unique_ptr<app::SharedStateSweeper> sweeper_;  // PostgreSQL only: leases, approvals, takeovers
    std::optional<std::filesystem::path> owner_token_file_;
    bool stopped_ = false;
};

}  // namespace skillhost::server
