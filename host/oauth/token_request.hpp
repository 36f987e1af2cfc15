// The token endpoint (RFC 6749 §3.2): one grant (an authorization code with its PKCE verifier, a
// refresh token, client credentials) exchanged for tokens, the client authenticated the way it is
// registered: client_secret_basic, client_secret_post, private_key_jwt, or none (a public client
// names itself). The answer is checked: a Bearer access token, its lifetime, what scope was granted.
#pragma once

#include "base/error.hpp"
#include "oauth/discovery.hpp"
#include "oauth/form_encoding.hpp"
#include "oauth/grant.hpp"

#include <functional>
#include <string>

namespace skillhost::oauth {

// Signs a client assertion (RFC 7523) for private_key_jwt: the JWT for `audience`, or an Error.
using ClientAssertionSigner =
    std::function<Result<std::string>(const std::string& client_id, const std::string& audience)>;

// How a client with `client` registration authenticates at `server`'s token endpoint: its
// registered method, else Basic when it has a secret and the server allows it (RFC 8414's default),
// else post; none without a secret.
std::string token_auth_method(const ServerMetadata& server, const ClientRegistration& client);

// `grant` holds the grant's fields (grant_type, code, code_verifier, redirect_uri, refresh_token,
// scope, resource). OAUTH_TOKEN_FAILED names what the server said when it refuses.
Result<Tokens> request_tokens(const ServerMetadata& server, const ClientRegistration& client, FormFields grant,
                              const ClientAssertionSigner& signer, Clock::time_point deadline);

}  // namespace skillhost::oauth
