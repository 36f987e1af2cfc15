#include "plugin/foreign_oauth.hpp"

#include "upstream/error_codes.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::plugin {

std::string login_command(std::string_view server, std::string_view user_id) {
    std::string command = "skillhost oauth login " + std::string(server);
    if (!user_id.empty()) command += " --user " + std::string(user_id);
    return command;
}

Result<std::shared_ptr<oauth::OAuthAuthorizer>> session_authorizer(
    const manifest::ForeignServer& server, std::shared_ptr<GrantStore> grants, const SecretSource* secrets,
    const std::string& user_id, oauth::UserAgent user_agent, std::string redirect_uri) {
    const manifest::ForeignOAuth& declared = *server.oauth;
    oauth::AuthorizerOptions options;
    options.server_url = server.url;
    options.label = "MCP server '" + server.name + "'";
    options.identity.client_id = declared.client_id;
    options.identity.metadata_url = declared.client_metadata_url;
    options.identity.client_name = "skillhost (" + server.name + ")";
    options.identity.redirect_uri = std::move(redirect_uri);
    if (declared.client_credentials) options.identity.grant_types = {"client_credentials"};
    options.scope = declared.scope;
    options.client_credentials = declared.client_credentials;
    options.user_agent = std::move(user_agent);
    options.login_hint = login_command(server.name, user_id);
    if (!declared.client_secret.empty()) {
        auto secret = secrets != nullptr ? secrets->secret(user_id, declared.client_secret)
                                         : Result<std::optional<std::string>>(std::optional<std::string>());
        if (!secret) return secret.error();
        if (!*secret) {
            Error error{errors::kUpstreamSecretMissing,
                        "MCP server '" + server.name + "' authorizes with the OAuth client '" + declared.client_id +
                            "', whose secret is the secret " + declared.client_secret + " of user '" + user_id +
                            "', which is not set; set it with `skillhost secrets set " + declared.client_secret +
                            " --user " + user_id + "` (the value is read from standard input)"};
            error.details["secret"] = declared.client_secret;
            return error;
        }
        options.identity.client_secret = std::move(**secret);
    }
    if (grants) {
        auto held = grants->grant(user_id, server.name);
        if (!held) return held.error();
        options.grant = std::move(*held);
        const std::string name = server.name;
        options.reload = [grants, user_id, name]() -> std::optional<oauth::Grant> {
            auto stored = grants->grant(user_id, name);
            if (!stored) return std::nullopt;
            return *stored;
        };
        options.on_grant = [grants, user_id, name](const oauth::Grant& grant) {
            if (const Status kept = grants->keep(user_id, name, grant); !kept)
                spdlog::warn(
                    "MCP server '{}': user '{}''s new OAuth tokens could not be kept ({}); they are used "
                    "until the instance stops",
                    name, user_id, kept.error().message);
        };
    }
    return std::make_shared<oauth::OAuthAuthorizer>(std::move(options));
}

}  // namespace skillhost::plugin
