// Client assertions for private_key_jwt (RFC 7523 §2.2, RFC 7521): a JWT the client signs with its
// own key instead of sending a secret. ES256 (a P-256 key) and RS256 (an RSA key), the key given as
// PEM (PKCS#8 or the traditional forms). Claims: iss = sub = the client id, aud = the authorization
// server's issuer, iat, exp 5 minutes later, a random jti.
#pragma once

#include "base/error.hpp"
#include "oauth/token_request.hpp"

#include <string>

namespace skillhost::oauth {

// OAUTH_FLOW_FAILED naming what is wrong when the key cannot be read or is not one `algorithm`
// signs with.
Result<ClientAssertionSigner> client_assertion_signer(const std::string& private_key_pem, const std::string& algorithm);

}  // namespace skillhost::oauth
