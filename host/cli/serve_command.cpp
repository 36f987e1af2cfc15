// `skillhost serve`: the long-running host with the HTTP API (docs/http-api.md).
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "config/host_config.hpp"
#include "server/daemon.hpp"
#include "cli/error_codes.hpp"

#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdlib>
#include <fstream>

namespace skillhost::cli {
namespace {

struct ServeArgs {
    std::string listen;
    unsigned threads = 0;
    bool allow_remote = false;
    std::string port_file;
};

int run_serve(CliContext& ctx, const ServeArgs& a) {
    // Before any thread starts, so every thread inherits the mask and signals reach sigwait.
    server::Daemon::block_signals();
    std::signal(SIGPIPE, SIG_IGN);
    if (!std::getenv("SKILLHOST_LOG_LEVEL")) spdlog::set_level(spdlog::level::info);

    auto cfg = ctx.load_config();
    if (!cfg) return fail_setup(cfg.error(), false);
    config::ServerSettings settings = cfg->server;
    if (!a.listen.empty()) {
        std::string problem;
        if (!config::parse_listen_address(a.listen, settings.host, settings.port, problem)) {
            return fail_setup(Error{errors::kInvalidListen, "--listen: " + problem, {}, {}}, false);
        }
    }
    if (a.threads) settings.threads = a.threads;
    if (a.allow_remote) settings.allow_remote = true;

    app::RuntimeOptions options;
    options.live_catalog = true;
    options.playbooks = true;
    options.refuse_damaged_store = true;
    options.start_servers_in_background = true;
    auto rt = ctx.runtime(options);
    if (!rt) return fail_setup(rt.error(), false);
    HostRuntime& host = *rt.value();
    if (auto watching = app::start_watching(host); !watching) {
        spdlog::warn("serve: hot reload is off: {}: {}", watching.error().code, watching.error().message);
    }
    auto daemon = server::Daemon::create(host, settings);
    if (!daemon) return fail_setup(daemon.error(), false);
    if (auto st = daemon.value()->start(); !st) return fail_setup(st.error(), false);
    auto& d = *daemon.value();

    const auto snapshot = host.snapshot();
    // How a client on this machine reaches the server (a wildcard address is reached on loopback).
    std::string reach = settings.host == "0.0.0.0" ? "127.0.0.1" : settings.host == "::" ? "::1" : settings.host;
    if (reach.find(':') != std::string::npos) reach = "[" + reach + "]";
    spdlog::info("serve: listening on http://{}:{} ({} skills from {} plugins; home {})", reach, d.port(),
                 snapshot->entries().size(), snapshot->plugins().size(), host.config().home.string());
    if (d.owner_token_file()) {
        spdlog::info(
            "serve: created the owner token for user '{}' in {} (readable only by you); use it as "
            "`curl -H \"Authorization: Bearer $(cat {})\" http://{}:{}/v1/skills`",
            host.users().first_owner().id, d.owner_token_file()->string(), d.owner_token_file()->string(), reach,
            d.port());
    }
    if (!a.port_file.empty()) {
        std::ofstream out(a.port_file + ".tmp");
        out << d.port() << "\n";
        out.close();
        std::error_code ec;
        std::filesystem::rename(a.port_file + ".tmp", a.port_file, ec);
    }
    d.wait_for_stop_signal();
    d.shutdown();
    return kExitOk;
}

}  // namespace

void register_serve_command(CLI::App& app, CliContext& ctx) {
    auto a = std::make_shared<ServeArgs>();
    auto* serve =
        app.add_subcommand("serve", "Run the host daemon: the HTTP API with live event streams, auth and metrics");
    serve->add_option("--listen", a->listen, "HOST:PORT to listen on (default: server.listen, else 127.0.0.1:8787)");
    serve->add_option("--threads", a->threads, "Network threads (default: server.threads, else one per core)")
        ->check(CLI::Range(1, 256));
    serve->add_flag("--allow-remote", a->allow_remote, "Allow listening on a non-loopback address");
    serve->add_option("--port-file", a->port_file,
                      "Write the bound port to this file once listening (useful with port 0)");
    ctx.add_global_options(*serve);
    serve->footer(
        "The first start creates an owner token in <home>/owner.token; the log says where.\n"
        "Example: curl -H \"Authorization: Bearer $(cat ~/.skillhost/owner.token)\" http://127.0.0.1:8787/v1/skills\n"
        "Signals: SIGTERM/SIGINT stop gracefully; SIGHUP rescans the plugin directories. See docs/http-api.md.");
    serve->callback([&ctx, a] { ctx.exit_code = run_serve(ctx, *a); });
}

}  // namespace skillhost::cli
