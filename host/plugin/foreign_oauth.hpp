// OAuth for a foreign streamable_http server whose declaration has `oauth:` (manifest::ForeignOAuth):
// each user's grant (the client the authorization server knows and the tokens it issued for that
// user) is kept sealed in the host's database, read when the user's instance starts, kept again
// whenever a refresh replaces it, and read again when the server refuses a token (a `skillhost
// oauth login` elsewhere may have replaced it). A user who has not authorized gets
// OAUTH_AUTHORIZATION_REQUIRED naming the login command; nothing is asked of them mid-call.
#pragma once

#include "base/error.hpp"
#include "manifest/foreign_server.hpp"
#include "oauth/grant.hpp"
#include "oauth/oauth_authorizer.hpp"
#include "plugin/foreign_secrets.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::plugin {

// Where users' grants are kept (app/user_secret_store.hpp seals them beside their secrets).
class GrantStore {
public:
    virtual ~GrantStore() = default;
    // Thread-safe, all three.
    virtual Result<std::optional<oauth::Grant>> grant(std::string_view user_id, std::string_view server) const = 0;
    virtual Status keep(std::string_view user_id, std::string_view server, const oauth::Grant& grant) = 0;
    // OAUTH_AUTHORIZATION_REQUIRED when the user has none for `server`.
    virtual Status forget(std::string_view user_id, std::string_view server) = 0;
};

// The command that authorizes `user_id` with `server`.
std::string login_command(std::string_view server, std::string_view user_id);

// The authorizer of `user_id`'s session with `server`, holding their grant. `user_agent` runs the
// authorization (a login); without one, a user who must authorize is told how. The client's secret
// (oauth.client_secret) is the user's secret of that name: UPSTREAM_SECRET_MISSING without it.
Result<std::shared_ptr<oauth::OAuthAuthorizer>> session_authorizer(
    const manifest::ForeignServer& server, std::shared_ptr<GrantStore> grants, const SecretSource* secrets,
    const std::string& user_id, oauth::UserAgent user_agent = {}, std::string redirect_uri = {});

}  // namespace skillhost::plugin
