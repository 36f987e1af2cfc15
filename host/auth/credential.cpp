#include "auth/credential.hpp"
#include "auth/error_codes.hpp"

namespace skillhost::auth {

const char* to_string(Scope s) {
    switch (s) {
        case Scope::call: return "call";
        case Scope::approve: return "approve";
        case Scope::admin: return "admin";
    }
    return "call";
}

Result<Scopes> Scopes::parse(std::string_view text) {
    Scopes out;
    while (!text.empty()) {
        const auto comma = text.find(',');
        std::string_view item = text.substr(0, comma);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (item == "call")
            out = out.with(Scope::call);
        else if (item == "approve")
            out = out.with(Scope::approve);
        else if (item == "admin")
            out = out.with(Scope::admin);
        else {
            Error e{errors::kInvalidScope,
                    "`" + std::string(item) + "` is not a token scope; the scopes are call, approve and admin",
                    {},
                    {"pass a comma-separated list such as --scope call or --scope call,approve"}};
            e.details["scope"] = std::string(item);
            return e;
        }
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    if (out.empty())
        return Error{errors::kInvalidScope, "a token needs at least one scope: call, approve or admin", {}, {}};
    return out;
}

std::string Scopes::to_text() const {
    std::string out;
    for (Scope s : {Scope::call, Scope::approve, Scope::admin}) {
        if (!has(s)) continue;
        if (!out.empty()) out += ',';
        out += to_string(s);
    }
    return out;
}

std::string token_id_of_hash(std::string_view sha256_hex) {
    return std::string(sha256_hex.substr(0, 12));
}

Error missing_scope_error(Scope needed, std::string_view action, const Credential& credential) {
    Error e{errors::kMissingScope,
            std::string(action) + " needs a token with the `" + to_string(needed) + "` scope; token " +
                credential.token_id + " has " + (credential.scopes.empty() ? "none" : credential.scopes.to_text()),
            {},
            {std::string("ask the owner for a token made with `skillhost token create --user ID --scope ") +
             to_string(needed) + "`, or do it at the terminal with the skillhost CLI"}};
    e.details["needed_scope"] = to_string(needed);
    e.details["token_id"] = credential.token_id;
    e.details["token_scopes"] = credential.scopes.to_text();
    return e;
}

}  // namespace skillhost::auth
