// The use cases of foreign servers' OAuth (plugin/foreign_oauth.hpp) that need no running server:
// which declarations ask for it, a user's login (the authorization, through the user agent the
// caller gives: a browser sent back to a loopback redirect), their status and their logout. Grants
// are kept in the user secret store; changes are audited as secret changes of "oauth:SERVER".
#pragma once

#include "app/user_secret_store.hpp"
#include "base/error.hpp"
#include "manifest/foreign_server.hpp"
#include "oauth/oauth_authorizer.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace skillhost::app {

// The foreign server declarations in the plugin directories that have `oauth:`.
std::vector<manifest::ForeignServer> oauth_servers(const std::vector<std::filesystem::path>& plugin_dirs);
// The one named `name`: OAUTH_SERVER_NOT_DECLARED naming those there are when there is none.
Result<manifest::ForeignServer> oauth_server(const std::vector<std::filesystem::path>& plugin_dirs,
                                             const std::string& name);

struct OAuthStatus {
    std::string server;
    bool authorized = false;
    std::string client_id;
    std::string scope;
    std::int64_t expires_at = 0;  // seconds since the epoch; 0: not said
    bool refreshable = false;     // a refresh token is held
};

OAuthStatus oauth_status(const manifest::ForeignServer& server, const std::optional<oauth::Grant>& grant);

// Authorizes `user_id` with `server` and keeps the grant; the grant obtained. The user's browser is
// sent back to a listener on 127.0.0.1 (oauth.redirect_port, or a free port): `show` is given the
// URL to open there. A client_credentials server needs no browser.
Result<oauth::Grant> oauth_login(const manifest::ForeignServer& server, std::shared_ptr<UserSecretStore> store,
                                 const std::string& user_id, const std::function<void(const std::string& url)>& show,
                                 oauth::Clock::time_point deadline);

}  // namespace skillhost::app
