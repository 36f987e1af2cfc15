// Who skillhost is to an authorization server, in the MCP spec's order of preference: a client
// registered beforehand (its id and secret configured), a client ID metadata document (its HTTPS
// URL is the client id, for a server that says it supports them), or dynamic client registration
// (RFC 7591) at the server's registration endpoint.
#pragma once

#include "base/error.hpp"
#include "oauth/discovery.hpp"
#include "oauth/grant.hpp"

#include <string>
#include <vector>

namespace skillhost::oauth {

struct ClientIdentity {
    std::string client_id;      // registered beforehand ("" when not)
    std::string client_secret;  // with client_id, for a confidential client
    std::string auth_method;    // with client_id: its token_endpoint_auth_method ("" lets the server's list decide)
    std::string metadata_url;   // the client ID metadata document's HTTPS URL ("" when none is published)
    std::string client_name = "skillhost";
    std::string redirect_uri;  // where the authorization server sends the user back
    std::vector<std::string> grant_types{"authorization_code", "refresh_token"};
};

// The registration to use with `server`. OAUTH_REGISTRATION_FAILED when no way is open (no
// pre-registered id, no metadata document the server takes, no registration endpoint) or the
// registration endpoint refuses.
Result<ClientRegistration> register_client(const ServerMetadata& server, const ClientIdentity& identity,
                                           Clock::time_point deadline);

}  // namespace skillhost::oauth
