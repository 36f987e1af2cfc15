// Enterprise-managed authorization (SEP-990, "cross-app access"): the user's identity provider
// vouches for them, so no authorization page is shown. The ID token the user holds from their
// identity provider is exchanged there (RFC 8693) for an identity assertion grant (ID-JAG) naming
// the MCP server's authorization server as audience and the MCP server as resource; that assertion
// is the JWT-bearer grant (RFC 7523) the authorization server issues the access token for.
#pragma once

#include "base/error.hpp"
#include "oauth/http_json.hpp"

#include <string>

namespace skillhost::oauth {

struct IdentityProvider {
    std::string token_endpoint;  // the identity provider's token endpoint
    std::string client_id;       // skillhost's client id there ("" when it needs none)
    std::string id_token;        // the user's ID token from it
};

// The ID-JAG for `audience` (the authorization server's issuer) and `resource`.
// OAUTH_TOKEN_FAILED naming what the identity provider said when it refuses.
Result<std::string> exchange_identity(const IdentityProvider& provider, const std::string& audience,
                                      const std::string& resource, const std::string& scope,
                                      Clock::time_point deadline);

}  // namespace skillhost::oauth
