// The api_tokens table of either backend: rows of SHA-256 hashes with their user, label and scopes.
// auth::ApiTokenStore keeps the rules (generating tokens, hashing, parsing scopes, what a
// revocation id must look like); this is only where the rows live. Implementations are thread-safe.
#pragma once

#include "base/error.hpp"
#include "db/storage_location.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::store {

struct TokenRow {
    std::string sha256;
    std::string user_id;
    std::string label;
    std::int64_t created_ms = 0;
    std::string scopes;  // "call,approve", as auth::Scopes writes it
};

class TokenRows {
public:
    static Result<std::unique_ptr<TokenRows>> open(const db::StorageLocation& location);
    virtual ~TokenRows() = default;

    virtual Status insert(const TokenRow& row) = 0;
    virtual Result<std::optional<TokenRow>> find(std::string_view sha256) const = 0;
    // Every row of `user_id`, or of everyone when it is empty; oldest first.
    virtual Result<std::vector<TokenRow>> list(std::string_view user_id) const = 0;
    // Deletes the rows whose hash starts with `prefix`; how many.
    virtual Result<int> remove_with_prefix(std::string_view prefix) = 0;
};

}  // namespace skillhost::store
