// What a request was authenticated with, beyond the user it names: the token (by id, never the
// secret) and that token's scopes. Approving is a separate right from calling, so an agent given a
// token that may call cannot also resolve the approvals its calls queue.
#pragma once

#include "base/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace skillhost::auth {

// call: run skills, start and resume runs. approve: approve or reject queued calls.
// admin: act on other users' approvals, runs and settings (with the owner role).
enum class Scope : std::uint8_t { call = 1, approve = 2, admin = 4 };

class Scopes {
public:
    constexpr Scopes() = default;
    static constexpr Scopes all() { return Scopes(7); }
    static constexpr Scopes only(Scope s) { return Scopes(static_cast<std::uint8_t>(s)); }
    // "call,approve" (any order, no duplicates needed); INVALID_SCOPE names the known scopes.
    static Result<Scopes> parse(std::string_view text);

    bool has(Scope s) const { return (bits_ & static_cast<std::uint8_t>(s)) != 0; }
    Scopes with(Scope s) const { return Scopes(bits_ | static_cast<std::uint8_t>(s)); }
    Scopes without(Scope s) const { return Scopes(bits_ & ~static_cast<std::uint8_t>(s) & 7); }
    bool empty() const { return bits_ == 0; }
    // "call,approve,admin" in that order; "" when empty.
    std::string to_text() const;

    bool operator==(const Scopes&) const = default;

private:
    constexpr explicit Scopes(unsigned bits) : bits_(static_cast<std::uint8_t>(bits & 7)) {}
    std::uint8_t bits_ = 0;
};

struct Credential {
    // The token's id (the first 12 hex digits of its SHA-256, as `skillhost token list` shows it);
    // empty for the user at the terminal, who runs the CLI as themselves.
    std::string token_id;
    Scopes scopes = Scopes::all();

    bool is_token() const { return !token_id.empty(); }
    bool may(Scope s) const { return scopes.has(s); }
};

// The token id of a token's SHA-256 hex digest.
std::string token_id_of_hash(std::string_view sha256_hex);

// MISSING_SCOPE (for a 403): the action, the scope it needs, and how to get a token that has it.
Error missing_scope_error(Scope needed, std::string_view action, const Credential& credential);

const char* to_string(Scope);

}  // namespace skillhost::auth
