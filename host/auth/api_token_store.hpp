// API tokens issued by the host itself (`skillhost token create`, and the owner token `serve`
// creates on first start), in the table `api_tokens` of the storage backend. Like users.yaml, the table holds
// only each token's SHA-256; the token is shown once, when it is created. Thread-safe.
#pragma once

#include "base/error.hpp"
#include "db/storage_location.hpp"
#include "auth/credential.hpp"
#include "store/token_rows.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::auth {

struct IssuedToken {
    std::string token;   // "shk_" + 64 hex digits; only ever returned by issue()
    std::string sha256;  // what is stored
    std::string user_id;
    std::string label;
    std::int64_t created_ms = 0;
    Scopes scopes = Scopes::all();
};

// Who a stored token acts as, and what it may do.
struct TokenGrant {
    std::string user_id;
    Credential credential;
};

// "shk_" followed by 64 hex digits of 32 random bytes (OpenSSL's RAND_bytes).
Result<std::string> generate_api_token();

class ApiTokenStore {
public:
    static Result<std::unique_ptr<ApiTokenStore>> open(const std::filesystem::path& database_file);
    // The tokens of whichever backend `location` names.
    static Result<std::unique_ptr<ApiTokenStore>> open(const db::StorageLocation& location);

    // Creates a token for `user_id`; the returned IssuedToken is the only place the token appears.
    // Tokens stored before scopes existed keep every scope (they could do everything then).
    Result<IssuedToken> issue(std::string_view user_id, std::string_view label, Scopes scopes = Scopes::all());
    // The user a presented token belongs to, or nullopt.
    Result<std::optional<std::string>> user_for(std::string_view token) const;
    // The user and credential (id, scopes) of a presented token, or nullopt.
    Result<std::optional<TokenGrant>> grant_for(std::string_view token) const;
    // Tokens (without the secret) of one user, or of everyone when `user_id` is empty.
    Result<std::vector<IssuedToken>> list(std::string_view user_id = {}) const;
    // Removes the tokens whose hash starts with `sha256_prefix` (at least 8 hex digits). How many.
    Result<int> revoke(std::string_view sha256_prefix);

private:
    explicit ApiTokenStore(std::unique_ptr<store::TokenRows> rows) : rows_(std::move(rows)) {}
    std::unique_ptr<store::TokenRows> rows_;
};

}  // namespace skillhost::auth
