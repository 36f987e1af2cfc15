// `skillhost oauth login|status|logout`: a user's authorization with the foreign MCP servers whose
// declarations have `oauth:` (docs/gateway.md, "OAuth"). The login prints the authorization URL
// for the user to open in a browser, which the authorization server sends back to a listener on
// 127.0.0.1; the grant is sealed in the host's database beside the user's secrets, where the
// daemon's sessions read it (and keep it refreshed). Tokens are never printed.
#include "app/oauth_actions.hpp"
#include "base/utc_time.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "cli/user_secrets_access.hpp"

#include <iostream>

namespace skillhost::cli {
namespace {

struct OAuthArgs {
    std::string server;
    std::string user;
    int timeout_s = 300;
    bool json = false;
};

std::string when(std::int64_t unix_s) {
    return format_utc_timestamp(TimePoint(std::chrono::seconds(unix_s)));
}

boost::json::object status_json(const app::OAuthStatus& status) {
    boost::json::object out{{"server", status.server}, {"authorized", status.authorized}};
    if (!status.authorized) return out;
    out["client_id"] = status.client_id;
    out["scope"] = status.scope;
    out["expires_at"] = status.expires_at == 0 ? boost::json::value() : boost::json::value(when(status.expires_at));
    out["refreshable"] = status.refreshable;
    return out;
}

int run_login(CliContext& ctx, const OAuthArgs& a) {
    auto opened = open_secrets(ctx, a.user);
    if (!opened) return fail_setup(opened.error(), a.json);
    auto server = app::oauth_server(opened->config.plugin_dirs, a.server);
    if (!server) return fail_setup(server.error(), a.json);
    const auto show = [&](const std::string& url) {
        // On stderr, so that --json output stays one document; flushed before the wait.
        std::cerr << "To authorize skillhost with MCP server '" << a.server << "' as " << opened->user_id
                  << ", open this URL in your browser and sign in:\n\n  " << url << "\n\nWaiting up to " << a.timeout_s
                  << " s for the browser to come back...\n"
                  << std::flush;
    };
    const auto deadline = oauth::Clock::now() + std::chrono::seconds(a.timeout_s);
    auto grant = app::oauth_login(*server, opened->store, opened->user_id, show, deadline);
    if (!grant) return fail_operation(grant.error(), a.json);
    opened->audit("secret_set", "oauth:" + a.server);
    const app::OAuthStatus status = app::oauth_status(*server, *grant);
    if (a.json) {
        boost::json::object out = status_json(status);
        out["user_id"] = opened->user_id;
        print_json(out);
    } else {
        std::cout << "Authorized " << opened->user_id << " with MCP server '" << a.server << "'"
                  << (status.scope.empty() ? std::string() : " (scope: " + status.scope + ")") << ". "
                  << (status.refreshable ? "skillhost refreshes the token as needed."
                                         : "The server gave no refresh token: log in again when it expires.")
                  << "\n";
    }
    return kExitOk;
}

int run_status(CliContext& ctx, const OAuthArgs& a) {
    auto opened = open_secrets(ctx, a.user);
    if (!opened) return fail_setup(opened.error(), a.json);
    std::vector<manifest::ForeignServer> servers;
    if (a.server.empty()) {
        servers = app::oauth_servers(opened->config.plugin_dirs);
    } else {
        auto server = app::oauth_server(opened->config.plugin_dirs, a.server);
        if (!server) return fail_setup(server.error(), a.json);
        servers.push_back(std::move(*server));
    }
    std::vector<app::OAuthStatus> statuses;
    for (const auto& server : servers) {
        auto grant = opened->store->grant(opened->user_id, server.name);
        if (!grant) return fail_operation(grant.error(), a.json);
        statuses.push_back(app::oauth_status(server, *grant));
    }
    if (a.json) {
        boost::json::array out;
        for (const auto& status : statuses) out.push_back(status_json(status));
        print_json(boost::json::object{{"user_id", opened->user_id}, {"servers", std::move(out)}});
        return kExitOk;
    }
    if (statuses.empty()) std::cout << "No declared MCP server uses OAuth (oauth: in its declaration).\n";
    for (const auto& status : statuses) {
        std::cout << status.server << ": ";
        if (!status.authorized) {
            std::cout << "not authorized; skillhost oauth login " << status.server << " --user " << opened->user_id
                      << "\n";
            continue;
        }
        std::cout << "authorized as client " << status.client_id;
        if (!status.scope.empty()) std::cout << ", scope " << status.scope;
        if (status.expires_at != 0) std::cout << ", token expires " << when(status.expires_at);
        std::cout << (status.refreshable ? ", refreshable" : "") << "\n";
    }
    return kExitOk;
}

int run_logout(CliContext& ctx, const OAuthArgs& a) {
    auto opened = open_secrets(ctx, a.user);
    if (!opened) return fail_setup(opened.error(), a.json);
    if (const Status forgotten = opened->store->forget(opened->user_id, a.server); !forgotten)
        return fail_operation(forgotten.error(), a.json);
    opened->audit("secret_deleted", "oauth:" + a.server);
    if (a.json) {
        print_json(boost::json::object{{"server", a.server}, {"user_id", opened->user_id}, {"authorized", false}});
    } else {
        std::cout << "Forgot " << opened->user_id << "'s authorization with MCP server '" << a.server
                  << "'. Its calls are refused for this user until they log in again.\n";
    }
    return kExitOk;
}

CLI::App* add_oauth_command(CLI::App& oauth, CliContext& ctx, const char* name, const char* help, bool server_required,
                            int (*run)(CliContext&, const OAuthArgs&)) {
    auto args = std::make_shared<OAuthArgs>();
    auto* command = oauth.add_subcommand(name, help);
    auto* server =
        command->add_option("SERVER", args->server, "The MCP server's name, as its declaration's name: says");
    if (server_required) server->required();
    command->add_option("--user", args->user, "Whose authorization (default: the configured default user)");
    command->add_flag("--json", args->json, "Machine-readable output");
    if (std::string_view(name) == "login")
        command->add_option("--timeout", args->timeout_s, "Seconds to wait for the browser to come back (default 300)")
            ->check(CLI::Range(5, 3600));
    ctx.add_global_options(*command);
    command->callback([&ctx, args, run] { ctx.exit_code = run(ctx, *args); });
    return command;
}

}  // namespace

void register_oauth_commands(CLI::App& app, CliContext& ctx) {
    auto* oauth = app.add_subcommand(
        "oauth", "A user's OAuth authorization with foreign MCP servers that ask for it: login, status, logout");
    oauth->footer(
        "A server declaration's `oauth:` says the server authorizes with OAuth; each user logs in once. The "
        "grant is sealed in the database (AES-256-GCM, key in <home>/secret.key) and refreshed by skillhost; "
        "tokens are never shown. See docs/gateway.md, \"OAuth\".");
    oauth->require_subcommand(1);
    add_oauth_command(*oauth, ctx, "login",
                      "Authorize with a server: prints the URL to open in a browser, then waits for it to come back",
                      true, run_login);
    add_oauth_command(*oauth, ctx, "status", "Whether a user is authorized with each server that uses OAuth", false,
                      run_status);
    add_oauth_command(*oauth, ctx, "logout", "Forget a user's authorization with a server", true, run_logout);
}

}  // namespace skillhost::cli
