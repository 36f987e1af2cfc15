#include "app/oauth_actions.hpp"

#include "app/declared_servers.hpp"

#include "oauth/error_codes.hpp"
#include "oauth/loopback_redirect.hpp"
#include "plugin/foreign_oauth.hpp"

namespace skillhost::app {

std::vector<manifest::ForeignServer> oauth_servers(const std::vector<std::filesystem::path>& plugin_dirs) {
    std::vector<manifest::ForeignServer> servers = declared_foreign_servers(plugin_dirs);
    std::erase_if(servers, [](const manifest::ForeignServer& server) { return !server.oauth; });
    return servers;
}

Result<manifest::ForeignServer> oauth_server(const std::vector<std::filesystem::path>& plugin_dirs,
                                             const std::string& name) {
    std::vector<manifest::ForeignServer> servers = oauth_servers(plugin_dirs);
    std::string known;
    for (auto& server : servers) {
        if (server.name == name) return std::move(server);
        known += (known.empty() ? "" : ", ") + server.name;
    }
    Error error{errors::kOauthServerNotDeclared,
                "no MCP server '" + name + "' with oauth: is declared in the plugin directories" +
                    (known.empty() ? std::string(" (none declares oauth:)") : "; those that do: " + known) +
                    ". `skillhost plugin check FILE` shows whether a declaration reads"};
    error.details["server"] = name;
    return error;
}

OAuthStatus oauth_status(const manifest::ForeignServer& server, const std::optional<oauth::Grant>& grant) {
    OAuthStatus status;
    status.server = server.name;
    if (!grant || grant->tokens.access_token.empty()) return status;
    status.authorized = true;
    status.client_id = grant->client.client_id;
    status.scope = grant->tokens.scope;
    status.expires_at = grant->tokens.expires_at;
    status.refreshable = !grant->tokens.refresh_token.empty();
    return status;
}

Result<oauth::Grant> oauth_login(const manifest::ForeignServer& server, std::shared_ptr<UserSecretStore> store,
                                 const std::string& user_id, const std::function<void(const std::string& url)>& show,
                                 oauth::Clock::time_point deadline) {
    auto redirect = oauth::LoopbackRedirect::open(server.oauth->redirect_port);
    if (!redirect) return redirect.error();
    // A login starts afresh: the kept grant (perhaps for another account) is not reused.
    auto authorizer = plugin::session_authorizer(server, nullptr, store.get(), user_id, redirect->user_agent(show),
                                                 redirect->redirect_uri());
    if (!authorizer) return authorizer.error();
    if (const Status authorized = (*authorizer)->authorize(deadline); !authorized) return authorized.error();
    std::optional<oauth::Grant> grant = (*authorizer)->grant();
    if (!grant) return Error{errors::kOauthFlowFailed, "the authorization ended without tokens"};
    if (const Status kept = store->keep(user_id, server.name, *grant); !kept) return kept.error();
    return *grant;
}

}  // namespace skillhost::app
