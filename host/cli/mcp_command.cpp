// `skillhost mcp [--user U]`: an MCP server on stdin/stdout for one client, acting as one user.
// The catalog is live (a PluginWatcher over the configured plugin directories), so the client sees
// notifications/tools/list_changed when a plugin is installed while it is connected.
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "mcp/mcp_session.hpp"
#include "mcp/stdio_transport.hpp"
#include "reload/watched_catalog.hpp"

#include <spdlog/spdlog.h>

#include <csignal>
#include <unistd.h>

namespace skillhost::cli {
namespace {

struct McpArgs {
    std::string user;
    std::size_t page_size = 50;
    std::size_t call_threads = 4;
};

int run_mcp(CliContext& ctx, const McpArgs& a) {
    // A client that goes away must end the session through EOF / a failed write, not SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
    app::RuntimeOptions runtime_options;
    runtime_options.live_catalog = true;
    runtime_options.playbooks = true;
    auto rt = ctx.runtime(runtime_options);
    if (!rt) {
        print_error(rt.error());
        return kExitFailed;
    }
    HostRuntime& host = *rt.value();
    auto user = host.user(a.user);
    if (!user) {
        print_error(user.error());
        return kExitFailed;
    }
    // The client of a stdio session runs for the user at the terminal; policy.yaml decides whether
    // that person's answer to an approval elicitation approves (approvals.stdio_elicitation_approves).
    if (!host.policy_config().stdio_elicitation_approves)
        user->credential.scopes = user->credential.scopes.without(auth::Scope::approve);
    if (auto status = app::start_watching(host); !status) {
        spdlog::warn("mcp: serving without hot reload: {}: {}", status.error().code, status.error().message);
    }
    reload::WatchedCatalog& watched = *host.live_catalog();

    mcp::StdioTransport transport(STDIN_FILENO, STDOUT_FILENO);
    mcp::McpSessionOptions options;
    options.page_size = a.page_size;
    options.call_threads = a.call_threads;
    // A call runs on the thread that read it; reading moves to another thread if it runs long.
    options.reader_handover = [] { return mcp::StdioTransport::handover_for_this_line(); };
    options.client_sampling = host.config().server.mcp_client_sampling;
    options.playbooks = host.playbooks();
    mcp::McpSession session(host.calls(), watched.catalog(), user.value(), options,
                            [&transport](const std::string& message) { transport.write_line(message); });
    spdlog::info("mcp: serving {} tools to user {} on stdio",
                 host.calls().visible_entries(*watched.catalog().snapshot(), user.value()).size(), user->user_id);
    transport.read_lines([&session](std::string_view line) { session.handle_line(line); });
    session.close();
    watched.stop();
    return kExitOk;
}

}  // namespace

void register_mcp_command(CLI::App& app, CliContext& ctx) {
    auto a = std::make_shared<McpArgs>();
    auto* mcp = app.add_subcommand(
        "mcp", "Serve the skill catalog to an MCP client over stdio (JSON-RPC, one message per line)");
    mcp->add_option("--user", a->user, "Act as this user (default: the configured default user)");
    mcp->add_option("--page-size", a->page_size, "Tools per tools/list page")
        ->check(CLI::Range(1, 10000))
        ->capture_default_str();
    mcp->add_option("--call-threads", a->call_threads, "tools/call requests that may run at once")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    ctx.add_global_options(*mcp);
    mcp->footer(
        "Example client configuration: {\"command\": \"skillhost\", \"args\": [\"mcp\", \"--user\", \"alice\"]}\n"
        "Logs go to stderr (SKILLHOST_LOG_LEVEL); stdout carries only MCP messages.");
    mcp->callback([&ctx, a] { ctx.exit_code = run_mcp(ctx, *a); });
}

}  // namespace skillhost::cli
