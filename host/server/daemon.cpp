#include "server/daemon.hpp"
#include "app/decision_upkeep.hpp"
#include "app/error_codes.hpp"
#include "db/error_codes.hpp"
#include "server/error_codes.hpp"

#include "app/run_ownership.hpp"
#include "app/storage_schema.hpp"
#include "auth/user_context.hpp"
#include "server/api_services.hpp"
#include "server/console_routes.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <csignal>
#include <pthread.h>
#include <thread>

namespace skillhost::server {

namespace json = boost::json;

namespace {

bool is_loopback(const std::string& host) {
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(host, ec);
    return !ec && address.is_loopback();
}

sigset_t stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    return set;
}

}  // namespace

Daemon::Daemon(app::HostRuntime& host, config::ServerSettings settings) : host_(host), settings_(std::move(settings)) {}

Result<std::unique_ptr<Daemon>> Daemon::create(app::HostRuntime& host, config::ServerSettings settings) {
    if (!host.live_catalog()) {
        return Error{
            errors::kCatalogNotLive, "the daemon needs a live catalog (load the runtime with live_catalog)", {}, {}};
    }
    if (!is_loopback(settings.host) && !settings.allow_remote) {
        Error e{errors::kRemoteBindNotAllowed,
                "listening on " + settings.host +
                    " would accept connections from other machines, which needs an explicit setting",
                {},
                {"set server.allow_remote: true in skillhost.yaml (or pass --allow-remote), or listen on 127.0.0.1"}};
        e.details["host"] = settings.host;
        return e;
    }
    std::unique_ptr<Daemon> d(new Daemon(host, std::move(settings)));
    auto operators = app::make_operator_runtime(host);
    if (!operators) return operators.error();
    d->operators_ = std::move(operators.value());
    auto tokens = auth::ApiTokenStore::open(app::storage_location(host.config()));
    if (!tokens) return tokens.error();
    d->tokens_ = std::move(tokens.value());
    d->auth_ = std::make_unique<TokenAuthenticator>(host.users(), *d->tokens_);
    const db::StorageLocation storage = app::storage_location(host.config());
    auto run_events = store::RunEventLog::open(storage);
    if (!run_events) return run_events.error();
    d->run_events_ = std::move(run_events.value());
    RunHubOptions hub_options;
    hub_options.max_runs_per_user = d->settings_.max_runs_per_user;
    hub_options.follow_other_instances = storage.backend == db::StorageBackend::postgres;
    d->runs_ = std::make_unique<RunHub>(*d->operators_.op, *d->operators_.runs, hub_options, d->run_events_.get());
    if (hub_options.follow_other_instances) {
        RunHub* hub = d->runs_.get();
        d->run_wakeups_ = std::make_unique<RunEventWakeups>(
            storage.postgres_url, [hub](const std::string& run_id) { hub->wake(run_id); }, [hub] { hub->wake_all(); });
    }
    ReadinessOptions readiness_options;
    readiness_options.cache_for = d->settings_.readiness_cache;
    d->readiness_ = std::make_unique<ReadinessCheck>(host, readiness_options);

    {
        // Kept in the database: a retry after a restart, or on another instance, replays too. A
        // key's claim names this process, as a run's owner does; it is dead when the process is
        // gone, or (PostgreSQL) when its instance announcement stopped or expired.
        auto records = store::IdempotencyRecords::open(storage);
        if (!records) return records.error();
        const store::RunOwnership ownership = app::this_process_run_ownership();
        store::RunLeases* leases = d->operators_.leases.get();
        auto alive = [ownership, leases](std::string_view owner) {
            if (ownership.is_alive && !ownership.is_alive(owner)) return false;
            if (!leases) return true;
            auto announced = leases->instance_alive(owner);
            return !(announced && announced->has_value() && !**announced);
        };
        d->idempotent_ = std::make_unique<IdempotentReplies>(std::move(records.value()), ownership.self, alive);
    }
    Daemon* self = d.get();
    host.observe_calls(std::make_shared<SkillCallMetrics>(d->metrics_));
    host.observe_model_calls(std::make_shared<LlmCallMetrics>(d->metrics_));
    const bool shared_backend = storage.backend == db::StorageBackend::postgres;
    app::HostRuntime* runtime = &host;
    host.also_on_reload([self, shared_backend, runtime](const reload::ReloadReport& report) {
        self->metrics_.record_reload(report);
        if (shared_backend && report.changed()) self->state_warning_.warn_about(*runtime->snapshot());
    });
    if (shared_backend) d->state_warning_.warn_about(*host.snapshot());

    d->services_.reset(new ApiServices{
        host, d->operators_, *d->runs_, d->metrics_, [self] { return self->gauges(); },
        [self] { return self->readiness_->check(); },
        [self](const std::string& user, StreamKind kind) { return self->server_->reserve_stream(user, kind); },
        std::make_shared<std::atomic<bool>>(false), d->settings_, *d->idempotent_});
    add_health_routes(d->routes_, *d->services_);
    add_skill_routes(d->routes_, *d->services_);
    add_run_routes(d->routes_, *d->services_);
    add_approval_routes(d->routes_, *d->services_);
    add_audit_routes(d->routes_, *d->services_);
    add_elicitation_routes(d->routes_, *d->services_);
    add_definition_change_routes(d->routes_, *d->services_);
    add_secret_routes(d->routes_, *d->services_);
    add_console_routes(d->routes_);
    McpHttpOptions mcp_options;
    mcp_options.loopback_only = is_loopback(d->settings_.host);
    mcp_options.allowed_origins = d->settings_.mcp_allowed_origins;
    mcp_options.reserve_stream = [self](const std::string& user, StreamKind kind) {
        return self->server_->reserve_stream(user, kind);
    };
    mcp_options.take_over_stream = [self](const std::weak_ptr<StreamSlot::State>& old) {
        return self->server_->take_over_stream(old);
    };
    mcp_options.max_sessions_per_user = d->settings_.mcp_sessions_per_user;
    mcp_options.idle_expiry = d->settings_.mcp_idle_expiry;
    // Sessions are kept in the database on both backends: on PostgreSQL any instance serves them,
    // and on either a restarted daemon continues them.
    {
        auto connection = db::BackendConnection::open(storage);
        if (!connection) return connection.error();
        mcp_options.shared_sessions =
            std::make_shared<McpSessionRows>(std::move(connection.value()), d->settings_.mcp_idle_expiry);
    }
    d->mcp_ = std::make_unique<McpHttpEndpoint>(host, mcp_options);
    for (auto verb : {http::verb::post, http::verb::get, http::verb::delete_}) {
        d->routes_.add(verb, "/mcp", [self](ApiRequest& req) { return self->mcp_->handle(req); });
    }

    HttpServerOptions http;
    http.host = d->settings_.host;
    http.port = d->settings_.port;
    http.network_threads =
        d->settings_.threads ? d->settings_.threads : std::max(1u, std::thread::hardware_concurrency());
    http.handler_threads = d->settings_.handler_threads;
    http.max_body_bytes = d->settings_.max_body_bytes;
    http.max_streams = d->settings_.max_streams;
    http.max_streams_per_user = d->settings_.max_streams_per_user;
    http.max_call_streams_per_user = d->settings_.max_call_streams_per_user;
    http.max_connections = d->settings_.max_connections;
    http.stream_write_timeout = d->settings_.stream_write_timeout;
    d->server_ = std::make_unique<HttpServer>(
        http, [self](Request& r) { return self->dispatch(r); },
        [self](const Error& error, unsigned version) { return self->error_reply(error, version); });
    return d;
}

void Daemon::save_interrupted(const std::vector<std::string>& run_ids) {
    // The shutdown stopped them, not their users: interrupted (resumable from the last saved step)
    // rather than cancelled.
    for (const auto& id : run_ids) {
        auto run = operators_.runs->get(id);
        if (!run || run->status != store::RunStatus::cancelled) continue;
        store::Run interrupted = store::interrupted_run(std::move(run.value()));
        interrupted.finished_ms = 0;
        if (interrupted.error) {
            interrupted.error->message =
                "the daemon shut down while this run worked; it continues from its last saved "
                "step with `skillhost runs resume " +
                id + "`";
        }
        if (auto st = operators_.runs->claim(interrupted, store::RunStatus::cancelled); !st)
            spdlog::warn("serve: run {} stays cancelled: {}", id, st.error().message);
    }
}

Daemon::~Daemon() {
    shutdown();
}

Status Daemon::start() {
    app::recover_interrupted_decisions(host_);
    if (auto st = server_->start(); !st) return st;
    if (operators_.leases) {
        app::SharedStateSweeperParts parts;
        parts.leases = operators_.leases.get();
        app::add_decision_queues(parts, host_);
        parts.runs = operators_.runs.get();
        parts.op = operators_.op.get();
        RunHub* hub = runs_.get();
        parts.resume_interrupted = [hub](const std::string& id) { return hub->resume_interrupted(id); };
        parts.resume_stopped = [hub](const std::string& id) { return hub->resume_stopped(id); };
        parts.working = [hub](const std::string& id) { return hub->working(id); };
        app::HostRuntime* host = &host_;
        parts.catalog_version = [host] { return host->snapshot()->version(); };
        parts.heartbeat = host_.config().storage.lease_heartbeat;
        parts.sweep_interval = host_.config().storage.sweep_interval;
        sweeper_ = std::make_unique<app::SharedStateSweeper>(std::move(parts));
    }
    // After binding: a start that cannot listen leaves no token behind that nobody was told about.
    auto token_file = ensure_owner_token(host_.users(), *tokens_, host_.config().home);
    if (!token_file) return token_file.error();
    owner_token_file_ = token_file.value();
    if (!is_loopback(settings_.host)) {
        spdlog::warn(
            "serve: listening on {} accepts connections from other machines; every request still needs a token",
            settings_.host);
    }
    return {};
}

// A 500 hides what failed (it is in the server log under the correlation id); every other answer
// says it.
Response Daemon::error_reply(const Error& error, unsigned version) {
    if (status_for(error) != http::status::internal_server_error) return error_response(error, version);
    Error hidden = error;
    const std::string id = new_correlation_id();
    spdlog::error("serve: {}: {} (correlation id {})", error.code, error.message, id);
    hidden.message = "the server failed unexpectedly (correlation id " + id + ", also in the server log)";
    hidden.details = {};
    hidden.suggestions = {};
    hidden.details["correlation_id"] = id;
    return error_response(hidden, version);
}

Reply Daemon::dispatch(Request& request) {
    const auto started = std::chrono::steady_clock::now();
    const std::string target(request.target());
    const auto question = target.find('?');
    std::string route_label = "unmatched";
    std::string authenticated_user;
    Reply reply = [&]() -> Reply {
        ApiRequest api{request, target.substr(0, question), {}, {}, nullptr};
        if (question != std::string::npos && !parse_query(std::string_view(target).substr(question + 1), api.query)) {
            return error_response(Error{errors::kInvalidQuery, "the query string has a malformed %-escape", {}, {}},
                                  request.version());
        }
        const auto match = routes_.match(request.method(), api.path);
        if (!match.route) {
            if (!match.allowed_methods.empty()) {
                std::string allow;
                for (const auto& m : match.allowed_methods) allow += (allow.empty() ? "" : ", ") + m;
                Error e{errors::kMethodNotAllowed,
                        std::string(request.method_string()) + " is not allowed on " + api.path + "; use " + allow,
                        {},
                        {}};
                Response r = error_response(e, request.version());
                r.set(http::field::allow, allow);
                return r;
            }
            Error e{errors::kNotFound,
                    "no endpoint " + std::string(request.method_string()) + " " + api.path,
                    {},
                    {"see docs/http-api.md for the endpoints"}};
            return error_response(e, request.version());
        }
        route_label = match.route->pattern;
        api.params = match.params;
        auth::UserContext user;
        if (!match.route->public_route) {
            auto user_id = auth_->authenticate(request[http::field::authorization]);
            if (!user_id) {
                if (user_id.error().kind() != ErrorKind::unauthenticated)
                    return error_reply(user_id.error(), request.version());
                Response r = error_response(user_id.error(), request.version());
                r.set(http::field::www_authenticate, "Bearer realm=\"skillhost\"");
                return r;
            }
            auto context = host_.user_exactly(user_id->user_id);
            if (!context) return error_reply(context.error(), request.version());
            user = auth::with_credential(std::move(context.value()), user_id->credential);
            authenticated_user = user.user_id;
            api.user = &user;
        }
        try {
            return match.route->handler(api);
        } catch (const ApiFailure& failure) {
            return error_reply(failure.error, request.version());
        }
    }();
    // Streams count against their user's limit (server.max_streams_per_user).
    if (auto* stream = std::get_if<StreamResponse>(&reply); stream && stream->owner.empty())
        stream->owner = authenticated_user;
    const unsigned status = std::holds_alternative<Response>(reply)
                                ? std::get<Response>(reply).result_int()
                                : static_cast<unsigned>(std::get<StreamResponse>(reply).status);
    metrics_.record_request(request.method_string(), route_label, status,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    return reply;
}

MetricGauges Daemon::gauges() const {
    MetricGauges g;
    const auto snapshot = host_.snapshot();
    g.catalog_version = snapshot->version();
    g.plugins_loaded = snapshot->plugins().size();
    g.plugin_failures = snapshot->failures().size();
    g.skills_loaded = snapshot->entries().size();
    if (auto pending = app::pending_approval_count(host_)) g.approvals_pending = *pending;
    g.requests_in_flight = server_->requests_in_flight();
    g.streams_open = server_->open_streams();
    if (auto counts = operators_.runs->count_by_status()) g.runs_by_status = std::move(counts.value());
    g.runs_active = runs_->working_count();
    const auto grounding = operators_.op->grounding_counts();
    g.grounding_checks = grounding.checks;
    g.grounding_failures = grounding.failures;
    g.grounding_regenerated = grounding.regenerated;
    g.grounding_withheld = grounding.withheld;
    return g;
}

void Daemon::shutdown() {
    if (stopped_) return;
    stopped_ = true;
    // A daemon whose create() failed part way (a damaged operator.yaml, an unopenable store) has
    // no server, runs or endpoints to stop: its members only need destroying.
    if (!server_ || !runs_ || !mcp_ || !services_) return;
    const auto deadline = std::chrono::steady_clock::now() + settings_.shutdown_grace;
    const auto left = [&] {
        return std::max(std::chrono::milliseconds(0), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                          deadline - std::chrono::steady_clock::now()));
    };
    // No more takeovers from here; this instance's announcement stays until its work is done.
    sweeper_.reset();
    server_->stop_accepting();
    runs_->stop_accepting();
    const std::size_t requests = server_->requests_in_flight();
    const std::size_t runs = runs_->working_count();
    if (requests || runs)
        spdlog::info("serve: stopping; waiting up to {} ms for {} request(s) and {} run(s)", left().count(), requests,
                     runs);
    const bool requests_done = server_->wait_idle(left());
    const bool runs_done = runs_->wait_idle(left());
    if (!runs_done) {
        spdlog::warn(
            "serve: stopping {} run(s) still working after the grace period (they are saved as interrupted "
            "and can be resumed)",
            runs_->working_count());
        const auto stopped = runs_->cancel_all();
        runs_->wait_idle(std::chrono::seconds(30));
        save_interrupted(stopped);
    }
    if (!requests_done) {
        spdlog::warn("serve: cancelling {} request(s) still running after the grace period",
                     server_->requests_in_flight());
        services_->stop_calls->store(true);
        server_->wait_idle(std::chrono::seconds(5));
    }
    mcp_->close_all();
    server_->stop();
    run_wakeups_.reset();
    runs_.reset();
    // Whatever it claimed and did not finish is abandoned now, and other instances may say so.
    if (operators_.leases) {
        if (auto retired = operators_.leases->retire_instance(); !retired)
            spdlog::warn("serve: retiring this instance failed: {}", retired.error().message);
    }
    spdlog::info("serve: stopped");
}

void Daemon::block_signals() {
    const sigset_t set = stop_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void Daemon::wait_for_stop_signal() {
    const sigset_t set = stop_signals();
    while (true) {
        int signal = 0;
        if (sigwait(&set, &signal) != 0) continue;
        if (signal == SIGHUP) {
            spdlog::info("serve: SIGHUP: rescanning the plugin directories");
            host_.live_catalog()->request_rescan();
            continue;
        }
        spdlog::info("serve: {} received; shutting down", signal == SIGTERM ? "SIGTERM" : "SIGINT");
        return;
    }
}

}  // namespace skillhost::server
