// Proof Key for Code Exchange (RFC 7636) with S256, and the random values an authorization needs
// (its state). Random bytes come from OpenSSL.
#pragma once

#include "base/error.hpp"
#include "oauth/base64.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace skillhost::oauth {

struct Pkce {
    std::string verifier;   // 43 characters of the unreserved set, kept by the client
    std::string challenge;  // BASE64URL(SHA-256(verifier)), sent with the authorization request
};

// `bytes` random bytes as base64url; OAUTH_FLOW_FAILED when OpenSSL has none.
Result<std::string> random_text(std::size_t bytes);
Result<Pkce> make_pkce();
// The S256 challenge of a verifier.
std::string s256_challenge(std::string_view verifier);

}  // namespace skillhost::oauth
