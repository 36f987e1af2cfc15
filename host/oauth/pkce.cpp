#include "oauth/pkce.hpp"

#include "oauth/error_codes.hpp"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <vector>

namespace skillhost::oauth {

Result<std::string> random_text(std::size_t bytes) {
    std::vector<unsigned char> raw(bytes);
    if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1)
        return Error{errors::kOauthFlowFailed, "no random bytes from OpenSSL for an OAuth authorization"};
    return base64url(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()));
}

std::string s256_challenge(std::string_view verifier) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), digest);
    return base64url(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

Result<Pkce> make_pkce() {
    auto verifier = random_text(32);  // 43 characters
    if (!verifier) return verifier.error();
    Pkce pkce;
    pkce.challenge = s256_challenge(*verifier);
    pkce.verifier = std::move(*verifier);
    return pkce;
}

}  // namespace skillhost::oauth
