#include "auth/api_token.hpp"

#include "base/sha256.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>

namespace skillhost::auth {

std::string hash_api_token(std::string_view token) {
    return sha256_hex(token);
}

bool is_sha256_hex(std::string_view text) {
    return text.size() == 64 && std::all_of(text.begin(), text.end(),
                                            [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

bool verify_api_token(std::string_view token, std::string_view expected_sha256_hex) {
    if (!is_sha256_hex(expected_sha256_hex)) return false;
    std::string expected(expected_sha256_hex);
    std::transform(expected.begin(), expected.end(), expected.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string actual = hash_api_token(token);
    return CRYPTO_memcmp(actual.data(), expected.data(), actual.size()) == 0;
}

}  // namespace skillhost::auth
