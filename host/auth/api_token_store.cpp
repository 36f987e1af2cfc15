#include "auth/api_token_store.hpp"
#include "auth/error_codes.hpp"

#include "auth/api_token.hpp"

#include <openssl/rand.h>

#include <array>
#include <chrono>

namespace skillhost::auth {

Result<std::string> generate_api_token() {
    std::array<unsigned char, 32> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
        return Error{errors::kTokenGenerationFailed,
                     "the system's random number generator failed; no token was created",
                     {},
                     {}};
    }
    static const char* hex = "0123456789abcdef";
    std::string token = "shk_";
    for (unsigned char b : bytes) {
        token += hex[b >> 4];
        token += hex[b & 15];
    }
    return token;
}

Result<std::unique_ptr<ApiTokenStore>> ApiTokenStore::open(const std::filesystem::path& database_file) {
    return open(db::StorageLocation::sqlite(database_file));
}

Result<std::unique_ptr<ApiTokenStore>> ApiTokenStore::open(const db::StorageLocation& location) {
    auto rows = store::TokenRows::open(location);
    if (!rows) return rows.error();
    return std::unique_ptr<ApiTokenStore>(new ApiTokenStore(std::move(rows.value())));
}

Result<IssuedToken> ApiTokenStore::issue(std::string_view user_id, std::string_view label, Scopes scopes) {
    auto token = generate_api_token();
    if (!token) return token.error();
    IssuedToken issued;
    issued.token = std::move(token.value());
    issued.sha256 = hash_api_token(issued.token);
    issued.user_id = std::string(user_id);
    issued.label = std::string(label);
    issued.scopes = scopes;
    issued.created_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    if (auto st = rows_->insert({issued.sha256, issued.user_id, issued.label, issued.created_ms, scopes.to_text()});
        !st)
        return st.error();
    return issued;
}

Result<std::optional<std::string>> ApiTokenStore::user_for(std::string_view token) const {
    auto grant = grant_for(token);
    if (!grant) return grant.error();
    if (!grant.value()) return std::optional<std::string>{};
    return std::optional<std::string>((*grant)->user_id);
}

Result<std::optional<TokenGrant>> ApiTokenStore::grant_for(std::string_view token) const {
    // The lookup is by hash: an attacker's timing can at most learn a prefix of a hash they chose.
    const std::string digest = hash_api_token(token);
    auto row = rows_->find(digest);
    if (!row) return row.error();
    if (!row.value()) return std::optional<TokenGrant>{};
    TokenGrant grant;
    grant.user_id = (*row)->user_id;
    grant.credential.token_id = token_id_of_hash(digest);
    // A stored value this version cannot read grants nothing rather than everything.
    auto scopes = Scopes::parse((*row)->scopes);
    grant.credential.scopes = scopes ? scopes.value() : Scopes();
    return std::optional<TokenGrant>(std::move(grant));
}

Result<std::vector<IssuedToken>> ApiTokenStore::list(std::string_view user_id) const {
    auto rows = rows_->list(user_id);
    if (!rows) return rows.error();
    std::vector<IssuedToken> out;
    for (const auto& row : rows.value()) {
        IssuedToken t;
        t.sha256 = row.sha256;
        t.user_id = row.user_id;
        t.label = row.label;
        t.created_ms = row.created_ms;
        auto scopes = Scopes::parse(row.scopes);
        t.scopes = scopes ? scopes.value() : Scopes();
        out.push_back(std::move(t));
    }
    return out;
}

Result<int> ApiTokenStore::revoke(std::string_view sha256_prefix) {
    if (sha256_prefix.size() < 8 || sha256_prefix.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
        Error e{errors::kInvalidTokenId,
                "a token id is at least 8 lowercase hex digits of its sha256 (see `skillhost token list`)",
                {},
                {}};
        e.details["id"] = std::string(sha256_prefix);
        return e;
    }
    return rows_->remove_with_prefix(sha256_prefix);
}

}  // namespace skillhost::auth
