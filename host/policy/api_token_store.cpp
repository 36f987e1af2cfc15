#include "policy/api_token_store.hpp"

#include "db/sqlite_schema.hpp"
#include "policy/api_token.hpp"

#include <openssl/rand.h>
#include <sqlite3.h>

#include <array>
#include <chrono>

namespace skillhost::policy {

Result<std::string> generate_api_token() {
    std::array<unsigned char, 32> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
        return Error{
            "TOKEN_GENERATION_FAILED", "the system's random number generator failed; no token was created", {}, {}};
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
    auto connection = db::SqliteConnection::open(database_file);
    if (!connection) return connection.error();
    if (auto st = db::migrate_sqlite_schema(*connection); !st) return st.error();
    return std::unique_ptr<ApiTokenStore>(new ApiTokenStore(std::move(*connection)));
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
    std::lock_guard lock(mutex_);
    db::SqliteStatement insert(
        connection_, "INSERT INTO api_tokens (sha256, user_id, label, created_ms, scopes) VALUES (?, ?, ?, ?, ?)");
    if (!insert.prepared()) return connection_.error("storing an API token");
    insert.bind(1, issued.sha256)
        .bind(2, issued.user_id)
        .bind(3, issued.label)
        .bind(4, issued.created_ms)
        .bind(5, scopes.to_text());
    if (insert.step() != SQLITE_DONE) return connection_.error("storing an API token");
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
    std::lock_guard lock(mutex_);
    db::SqliteStatement select(connection_, "SELECT user_id, scopes FROM api_tokens WHERE sha256 = ?");
    if (!select.prepared()) return connection_.error("checking an API token");
    select.bind(1, digest);
    const int rc = select.step();
    if (rc == SQLITE_DONE) return std::optional<TokenGrant>{};
    if (rc != SQLITE_ROW) return connection_.error("checking an API token");
    TokenGrant grant;
    grant.user_id = select.text(0);
    grant.credential.token_id = token_id_of_hash(digest);
    // A stored value this version cannot read grants nothing rather than everything.
    auto scopes = Scopes::parse(select.text(1));
    grant.credential.scopes = scopes ? scopes.value() : Scopes();
    return std::optional<TokenGrant>(std::move(grant));
}

Result<std::vector<IssuedToken>> ApiTokenStore::list(std::string_view user_id) const {
    std::lock_guard lock(mutex_);
    db::SqliteStatement select(
        connection_, user_id.empty()
                         ? "SELECT sha256, user_id, label, created_ms, scopes FROM api_tokens ORDER BY created_ms"
                         : "SELECT sha256, user_id, label, created_ms, scopes FROM api_tokens WHERE user_id = ? "
                           "ORDER BY created_ms");
    if (!select.prepared()) return connection_.error("listing API tokens");
    if (!user_id.empty()) select.bind(1, user_id);
    std::vector<IssuedToken> out;
    int rc = 0;
    while ((rc = select.step()) == SQLITE_ROW) {
        IssuedToken t;
        t.sha256 = select.text(0);
        t.user_id = select.text(1);
        t.label = select.text(2);
        t.created_ms = select.integer(3);
        auto scopes = Scopes::parse(select.text(4));
        t.scopes = scopes ? scopes.value() : Scopes();
        out.push_back(std::move(t));
    }
    if (rc != SQLITE_DONE) return connection_.error("listing API tokens");
    return out;
}

Result<int> ApiTokenStore::revoke(std::string_view sha256_prefix) {
    if (sha256_prefix.size() < 8 || sha256_prefix.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
        Error e{"INVALID_TOKEN_ID",
                "a token id is at least 8 lowercase hex digits of its sha256 (see `skillhost token list`)",
                {},
                {}};
        e.details["id"] = std::string(sha256_prefix);
        return e;
    }
    std::lock_guard lock(mutex_);
    db::SqliteStatement remove(connection_, "DELETE FROM api_tokens WHERE substr(sha256, 1, ?) = ?");
    if (!remove.prepared()) return connection_.error("revoking an API token");
    remove.bind(1, static_cast<std::int64_t>(sha256_prefix.size())).bind(2, sha256_prefix);
    if (remove.step() != SQLITE_DONE) return connection_.error("revoking an API token");
    return sqlite3_changes(connection_.handle());
}

}  // namespace skillhost::policy
