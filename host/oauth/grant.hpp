// What an OAuth authorization leaves behind for one (server, user): the client the authorization
// server knows skillhost as, and the tokens it issued. Kept durably by whoever owns the session
// (sealed in the user's secrets), so a restart does not ask the user again; as JSON both ways.
#pragma once

#include "base/error.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>

namespace skillhost::oauth {

struct ClientRegistration {
    std::string issuer;  // the authorization server it is registered with
    std::string client_id;
    std::string client_secret;  // "" for a public client
    std::string auth_method;    // token_endpoint_auth_method: client_secret_basic, client_secret_post, none, ...
};

struct Tokens {
    std::string access_token;
    std::string refresh_token;    // "" when none was issued
    std::string scope;            // what was granted (or asked for, when the answer names none)
    std::int64_t expires_at = 0;  // seconds since the epoch; 0: not said
};

struct Grant {
    std::string resource;  // the server it is for (canonical URI)
    ClientRegistration client;
    Tokens tokens;
};

boost::json::value grant_to_json(const Grant& grant);
// OAUTH_FLOW_FAILED when the JSON is not a grant this version wrote.
Result<Grant> grant_from_json(const boost::json::value& json);

}  // namespace skillhost::oauth
