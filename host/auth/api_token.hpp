// API tokens are never stored: users.yaml holds their SHA-256, and a presented token is checked
// against it in constant time so response timing reveals nothing about the stored hash.
#pragma once

#include <string>
#include <string_view>

namespace skillhost::auth {

// Lowercase hex SHA-256 of the token: what goes into users.yaml as api_token_sha256.
std::string hash_api_token(std::string_view token);

// True when sha256(token) equals `expected_sha256_hex` (case-insensitive hex). Constant time in
// the token's hash; an empty or malformed expected hash never verifies.
bool verify_api_token(std::string_view token, std::string_view expected_sha256_hex);

// 64 hex digits.
bool is_sha256_hex(std::string_view text);

}  // namespace skillhost::auth
