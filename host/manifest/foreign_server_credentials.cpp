#include "manifest/foreign_server_credentials.hpp"

#include "manifest/identifier_text.hpp"
#include "manifest/manifest_document.hpp"

#include <algorithm>
#include <array>

namespace skillhost::manifest::detail {

namespace {

constexpr std::array<std::string_view, 4> kSecretKeys = {"name", "env", "header", "format"};
constexpr std::array<std::string_view, 6> kOAuthKeys = {"client_id", "client_secret", "client_metadata_url",
                                                        "scope",     "redirect_port", "grant"};
constexpr std::array<std::string_view, 2> kOAuthGrants = {"authorization_code", "client_credentials"};
constexpr std::string_view kValuePlaceholder = "{value}";

std::optional<std::string> check_secret_name(const std::string& name) {
    if (is_variable_name(name)) return std::nullopt;
    return "invalid secret name \"" + name + "\"; use " + kVariableShape;
}

// Where a secret goes must not be set twice: by `env:`/`headers:` or by an earlier secret.
void check_secret_target(const Field& field, const ForeignServer& server, const ForeignSecret& secret,
                         ProblemList& problems) {
    const bool is_env = !secret.env.empty();
    const std::string& target = is_env ? secret.env : secret.header;
    auto same = [&](std::string_view other) { return is_env ? other == target : same_header(other, target); };
    const auto& fixed = is_env ? server.env : server.headers;
    const bool in_fixed = std::any_of(fixed.begin(), fixed.end(), [&](const auto& entry) { return same(entry.first); });
    const bool in_secrets = std::any_of(server.secrets.begin(), server.secrets.end(), [&](const ForeignSecret& other) {
        return same(is_env ? other.env : other.header);
    });
    if (in_fixed || in_secrets) {
        problems.add(field, "'" + target + "' is already set " +
                                (in_fixed ? std::string(is_env ? "under env" : "under headers") : "by another secret") +
                                "; set each " + (is_env ? "variable" : "header") + " in one place");
    }
}

// The secret's `format`: "{value}" once, one line.
std::optional<std::string> read_secret_format(const Field& field, ProblemList& problems) {
    auto text = read_string(field, problems);
    if (!text) return std::nullopt;
    const std::size_t placeholders = count_of(*text, kValuePlaceholder);
    if (placeholders != 1) {
        problems.add(field, "must contain {value} exactly once (found " + std::to_string(placeholders) +
                                "), where the secret goes, e.g. \"Bearer {value}\"");
        return std::nullopt;
    }
    if (has_nul_or_line_break(*text)) {
        problems.add(field, "must not contain a NUL or a line break");
        return std::nullopt;
    }
    return text;
}

// The secret's `env` or `header`: a name of the kind its transport takes.
bool read_secret_target(const Field& field, bool is_env, std::optional<ForeignTransport> transport,
                        ForeignSecret& secret, ProblemList& problems) {
    if (transport && *transport != (is_env ? ForeignTransport::stdio : ForeignTransport::streamable_http)) {
        problems.add(field, is_env ? "env is for transport stdio, and this server's transport is streamable_http; "
                                     "put the secret in a header (header: Authorization)"
                                   : "header is for transport streamable_http, and this server's transport is "
                                     "stdio; put the secret in an environment variable (env: NAME)");
        return false;
    }
    auto text = read_string(field, problems);
    if (!text) return false;
    if (is_env ? !is_variable_name(*text) : !is_header_name(*text)) {
        problems.add(field, std::string(is_env ? "invalid environment variable name \"" : "invalid header name \"") +
                                *text + "\"; use " + (is_env ? kVariableShape : kHeaderShape));
        return false;
    }
    (is_env ? secret.env : secret.header) = std::move(*text);
    return true;
}

void read_secret(const Field& item, std::optional<ForeignTransport> transport, ForeignServer& server,
                 ProblemList& problems) {
    auto map = FieldMap::read(item, KeyList(kSecretKeys), problems);
    if (!map) return;
    ForeignSecret secret;
    auto name = read_checked(*map, "name", "give the name the user's secret is stored under, e.g. GITHUB_TOKEN",
                             check_secret_name, problems);
    bool usable = name.has_value();
    if (name) secret.name = std::move(*name);
    if (const Field* format = map->find("format")) {
        auto text = read_secret_format(*format, problems);
        if (text) secret.format = std::move(*text);
        usable = usable && text.has_value();
    }
    const Field* env = map->find("env");
    const Field* header = map->find("header");
    if (env != nullptr && header != nullptr) {
        problems.add(item,
                     "give either env or header, not both: env for transport stdio, header for "
                     "streamable_http");
        return;
    }
    if (env == nullptr && header == nullptr) {
        problems.add(item,
                     "missing env or header; say where the secret goes: env: VARIABLE for transport stdio, "
                     "header: Name for streamable_http");
        return;
    }
    const Field& target = env != nullptr ? *env : *header;
    if (!read_secret_target(target, env != nullptr, transport, secret, problems)) return;
    check_secret_target(target, server, secret, problems);
    if (usable) server.secrets.push_back(std::move(secret));
}

// One line of printable ASCII, at most `limit` bytes: what an OAuth parameter may be.
std::optional<std::string> read_oauth_text(const Field& field, std::size_t limit, ProblemList& problems) {
    auto text = read_string(field, problems);
    if (!text) return std::nullopt;
    const bool printable = std::all_of(text->begin(), text->end(), [](char c) { return c > 0x20 && c < 0x7f; });
    if (text->empty() || text->size() > limit || !printable) {
        problems.add(field, "must be 1 to " + std::to_string(limit) + " printable characters without spaces");
        return std::nullopt;
    }
    return text;
}

}  // namespace

void read_secrets(const Field& field, std::optional<ForeignTransport> transport, ForeignServer& server,
                  ProblemList& problems) {
    auto items = read_list(field, problems);
    if (!items) return;
    for (const Field& item : *items) read_secret(item, transport, server, problems);
}

void read_oauth(const Field& field, std::optional<ForeignTransport> transport, ForeignServer& server,
                ProblemList& problems) {
    if (transport && *transport != ForeignTransport::streamable_http) {
        problems.add(field,
                     "oauth is for transport streamable_http, and this server's transport is stdio; give a "
                     "stdio server its credentials as secrets (env)");
        return;
    }
    auto map = FieldMap::read(field, KeyList(kOAuthKeys), problems);
    if (!map) return;
    ForeignOAuth oauth;
    bool usable = true;
    const auto text = [&](std::string_view key, std::size_t limit, std::string& into) {
        const Field* entry = map->find(key);
        if (entry == nullptr) return;
        auto value = read_oauth_text(*entry, limit, problems);
        usable = usable && value.has_value();
        if (value) into = std::move(*value);
    };
    text("client_id", 2048, oauth.client_id);
    if (const Field* secret = map->find("client_secret")) {
        if (auto name = read_string(*secret, problems)) {
            if (auto complaint = check_secret_name(*name)) {
                problems.add(*secret, *complaint +
                                          " (the name of the user's secret that holds the client's secret, "
                                          "set with `skillhost secrets set NAME`)");
                usable = false;
            } else {
                oauth.client_secret = std::move(*name);
            }
        }
    }
    text("client_metadata_url", 2048, oauth.client_metadata_url);
    if (!oauth.client_metadata_url.empty() && !oauth.client_metadata_url.starts_with("https://")) {
        problems.add(*map->find("client_metadata_url"),
                     "must be an https:// URL: an authorization server fetches the client's metadata from it");
        usable = false;
    }
    if (const Field* scope = map->find("scope")) {
        if (auto value = read_string(*scope, problems)) {
            const bool printable =
                std::all_of(value->begin(), value->end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"'; });
            if (value->empty() || value->size() > 2048 || !printable) {
                problems.add(*scope, "must be scopes separated by spaces, e.g. \"read write\" (printable, no quotes)");
                usable = false;
            } else {
                oauth.scope = std::move(*value);
            }
        }
    }
    if (const Field* port = map->find("redirect_port")) {
        if (auto value = read_integer(*port, 0, 65535, problems))
            oauth.redirect_port = static_cast<std::uint16_t>(*value);
    }
    if (const Field* grant = map->find("grant")) {
        if (auto value = read_choice(*grant, KeyList(kOAuthGrants), problems))
            oauth.client_credentials = *value == "client_credentials";
    }
    if (!oauth.client_secret.empty() && oauth.client_id.empty()) {
        problems.add(field, "client_secret without client_id; give the client_id the secret belongs to");
        usable = false;
    }
    if (oauth.client_credentials && (oauth.client_id.empty() || oauth.client_secret.empty())) {
        problems.add(field,
                     "grant client_credentials needs client_id and client_secret (the client is the one "
                     "authorized; no user signs in)");
        usable = false;
    }
    const auto sets_authorization = [](const std::string& header) { return same_header(header, "Authorization"); };
    const bool fixed = std::any_of(server.headers.begin(), server.headers.end(),
                                   [&](const auto& header) { return sets_authorization(header.first); });
    const bool secret = std::any_of(server.secrets.begin(), server.secrets.end(),
                                    [&](const ForeignSecret& other) { return sets_authorization(other.header); });
    if (fixed || secret) {
        problems.add(field, std::string("the Authorization header is already set ") +
                                (fixed ? "under headers" : "by a secret") +
                                "; with oauth skillhost sets it. Remove one of them");
        usable = false;
    }
    if (usable) server.oauth = std::move(oauth);
}

}  // namespace skillhost::manifest::detail
