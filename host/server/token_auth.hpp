// Bearer-token authentication: `Authorization: Bearer TOKEN` names the user a request acts as.
// Tokens are checked against users.yaml (api_token_sha256) and the tokens the host issued
// (auth::ApiTokenStore). Only hashes are ever stored or cached.
#pragma once

#include "base/error.hpp"
#include "auth/api_token_store.hpp"
#include "auth/users.hpp"

#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace skillhost::server {

class TokenAuthenticator {
public:
    // Both must outlive this.
    TokenAuthenticator(const auth::UserDirectory& users, const auth::ApiTokenStore& tokens);

    // The user and credential (token id and scopes) for an Authorization header value. A token
    // from users.yaml has every scope; an issued one has the scopes it was created with. Errors (all
    // 401): AUTH_MISSING (no header), AUTH_MALFORMED (not "Bearer TOKEN"), AUTH_INVALID (no user has
    // this token).
    Result<auth::TokenGrant> authenticate(std::string_view authorization) const;

private:
    const auth::UserDirectory& users_;
    const auth::ApiTokenStore& tokens_;
    struct Cached {
        auth::TokenGrant grant;
        std::chrono::steady_clock::time_point until;
    };
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::string, Cached> cache_;  // by token hash; short-lived (revocation)
};

// When no owner can authenticate yet (no api_token_sha256 for an owner in users.yaml and no stored
// token for one), issues a token for the first owner and writes it to <home>/owner.token, readable
// only by its owner (0600). Returns that file, or nullopt when an owner token already existed.
Result<std::optional<std::filesystem::path>> ensure_owner_token(const auth::UserDirectory& users,
                                                                auth::ApiTokenStore& tokens,
                                                                const std::filesystem::path& home);

}  // namespace skillhost::server
