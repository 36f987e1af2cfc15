#include "oauth/oauth_authorizer.hpp"

#include "net/url.hpp"
#include "oauth/bearer_challenge.hpp"
#include "oauth/error_codes.hpp"
#include "oauth/form_encoding.hpp"
#include "oauth/pkce.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

namespace skillhost::oauth {

namespace {

std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string word;
    while (in >> word && out.size() < 256) out.push_back(word);
    return out;
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& item : items) {
        if (!out.empty()) out += ' ';
        out += item;
    }
    return out;
}

// `base` with the scopes of `more` it lacks added.
std::string scope_union(const std::string& base, const std::string& more) {
    std::vector<std::string> all = words(base);
    for (const std::string& scope : words(more))
        if (std::find(all.begin(), all.end(), scope) == all.end()) all.push_back(scope);
    return joined(all);
}

bool offers(const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

OAuthAuthorizer::OAuthAuthorizer(AuthorizerOptions options) : options_(std::move(options)) {
    grant_ = options_.grant;
}

std::string OAuthAuthorizer::authorization() {
    std::lock_guard lock(mutex_);
    if (!grant_ || grant_->tokens.access_token.empty()) return {};
    return "Bearer " + grant_->tokens.access_token;
}

std::optional<Grant> OAuthAuthorizer::grant() const {
    std::lock_guard lock(mutex_);
    return grant_;
}

std::string OAuthAuthorizer::resource() const {
    if (resource_metadata_ && !resource_metadata_->resource.empty()) return resource_metadata_->resource;
    return canonical_resource(options_.server_url);
}

void OAuthAuthorizer::adopt(ClientRegistration client, Tokens tokens) {
    Grant changed;
    {
        std::lock_guard lock(mutex_);
        if (!grant_) grant_.emplace();
        grant_->resource = canonical_resource(options_.server_url);
        grant_->client = std::move(client);
        grant_->tokens = std::move(tokens);
        changed = *grant_;
    }
    if (options_.on_grant) options_.on_grant(changed);
}

Status OAuthAuthorizer::answer(const upstream::HttpRefusal& refusal, Clock::time_point deadline) {
    std::lock_guard flow(flow_mutex_);
    if (options_.reload) {
        std::optional<Grant> kept = options_.reload();
        std::lock_guard lock(mutex_);
        if (kept && !kept->tokens.access_token.empty() &&
            (!grant_ || grant_->tokens.access_token != kept->tokens.access_token))
            grant_ = std::move(kept);
    }
    const std::string current = authorization();
    // Another flow (here, or a login elsewhere) has replaced the credential this request carried.
    if (!current.empty() && current != refusal.authorization) return {};
    const auto challenge = parse_bearer_challenge(refusal.www_authenticate);
    const BearerChallenge none;
    const BearerChallenge& said = challenge ? *challenge : none;
    if (refusal.status == 403) {
        if (said.error != "insufficient_scope")
            return Error{errors::kOauthAuthorizationDenied,
                         options_.label + " forbids this request (HTTP 403" +
                             (said.error.empty() ? std::string() : ", " + said.error) +
                             (said.error_description.empty() ? std::string() : ": " + said.error_description) +
                             "); the account it was authorized with may not do it"};
        return step_up(said, deadline);
    }
    if (!current.empty() && said.error != "insufficient_scope") {
        if (refresh(deadline)) return {};
    }
    if (said.error == "insufficient_scope") return step_up(said, deadline);
    return authorize_with(said.resource_metadata, said.scope, false, deadline);
}

Status OAuthAuthorizer::step_up(const BearerChallenge& said, Clock::time_point deadline) {
    // A scope the token already holds is not obtained by asking again: the account lacks the right.
    const std::optional<Grant> held = grant();
    if (held && !held->tokens.access_token.empty()) {
        const std::vector<std::string> granted = words(held->tokens.scope);
        bool holds_all = true;
        for (const std::string& scope : words(said.scope))
            holds_all = holds_all && std::find(granted.begin(), granted.end(), scope) != granted.end();
        if (holds_all)
            return Error{errors::kOauthInsufficientScope,
                         options_.label + " refuses the request for want of scope '" + said.scope +
                             "', which the token already holds; the account it was authorized with lacks the "
                             "right. Ask the server's operator for it"};
    }
    return authorize_with(said.resource_metadata, said.scope, true, deadline);
}

Status OAuthAuthorizer::authorize(Clock::time_point deadline) {
    std::lock_guard flow(flow_mutex_);
    return authorize_with("", "", false, deadline);
}

Status OAuthAuthorizer::refresh(Clock::time_point deadline) {
    std::optional<Grant> held = grant();
    if (!held || held->tokens.refresh_token.empty()) return Error{errors::kOauthTokenFailed, "no refresh token"};
    if (!server_metadata_) {
        if (const Status found = discover("", deadline); !found) return found;
    }
    FormFields fields{
        {"grant_type", "refresh_token"}, {"refresh_token", held->tokens.refresh_token}, {"resource", resource()}};
    auto tokens = request_tokens(*server_metadata_, held->client, std::move(fields), options_.signer, deadline);
    if (!tokens) return tokens.error();
    if (tokens->refresh_token.empty()) tokens->refresh_token = held->tokens.refresh_token;  // not rotated
    if (tokens->scope.empty()) tokens->scope = held->tokens.scope;
    adopt(held->client, std::move(*tokens));
    return {};
}

Status OAuthAuthorizer::discover(const std::string& resource_metadata, Clock::time_point deadline) {
    auto found = discover_resource(options_.server_url, resource_metadata, deadline);
    if (!found) return found.error();
    std::string issuer;
    bool legacy = false;
    if (*found) {
        const ResourceMetadata& metadata = **found;
        if (!metadata.resource.empty() && !resource_covers(metadata.resource, options_.server_url))
            return Error{errors::kOauthResourceMismatch,
                         "the protected resource metadata at " + metadata.url + " is for '" + metadata.resource +
                             "', not for " + options_.label + " at " + options_.server_url +
                             "; no token is asked for it (RFC 9728 §3.3). Check the server's URL"};
        issuer = metadata.authorization_servers.front();
        resource_metadata_ = metadata;
    } else {
        // A 2025-03-26 server: no resource metadata, its own origin authorizes.
        auto parsed = http::parse_url(options_.server_url);
        if (!parsed) return parsed.error();
        issuer = parsed->origin();
        legacy = true;
        resource_metadata_.reset();
    }
    auto server = discover_server(issuer, options_.server_url, legacy, deadline);
    if (!server) return server.error();
    if (!legacy && !options_.client_credentials && !options_.identity_provider &&
        !offers(server->code_challenge_methods_supported, "S256"))
        return Error{errors::kOauthUnsafeServer,
                     "the authorization server " + issuer +
                         " does not say it supports PKCE with S256 (code_challenge_methods_supported), which "
                         "the MCP spec requires; skillhost does not authorize with it"};
    server_metadata_ = std::move(*server);
    return {};
}

std::string OAuthAuthorizer::scope_for(const std::string& challenge_scope, bool step_up) const {
    std::string scope;
    if (!challenge_scope.empty()) {
        scope = challenge_scope;
    } else if (resource_metadata_ && !resource_metadata_->scopes_supported.empty()) {
        scope = joined(resource_metadata_->scopes_supported);
    } else {
        scope = options_.scope;
    }
    if (step_up) {
        const std::optional<Grant> held = grant();
        if (held) scope = scope_union(held->tokens.scope, scope);
    }
    // A refresh token is asked for where the server offers one for it (SEP-2207): offline_access.
    if (!options_.client_credentials && !options_.identity_provider && !scope.empty() && server_metadata_ &&
        offers(server_metadata_->scopes_supported, "offline_access"))
        scope = scope_union(scope, "offline_access");
    return scope;
}

Error OAuthAuthorizer::authorization_required() const {
    Error error{errors::kOauthAuthorizationRequired,
                options_.label + " needs you to authorize skillhost with its authorization server " +
                    server_metadata_->issuer + "; " +
                    (options_.login_hint.empty() ? std::string("authorize, then call again")
                                                 : "run `" + options_.login_hint + "`, then call again")};
    if (!options_.login_hint.empty()) error.suggestions.push_back(options_.login_hint);
    error.details["authorization_server"] = server_metadata_->issuer;
    return error;
}

Result<std::string> OAuthAuthorizer::obtain_code(const ClientRegistration& client, const std::string& scope,
                                                 const std::string& resource, const std::string& verifier,
                                                 Clock::time_point deadline) {
    auto state = random_text(24);
    if (!state) return state.error();
    FormFields fields{{"response_type", "code"},
                      {"client_id", client.client_id},
                      {"redirect_uri", options_.identity.redirect_uri},
                      {"code_challenge", s256_challenge(verifier)},
                      {"code_challenge_method", "S256"},
                      {"state", *state},
                      {"resource", resource}};
    if (!scope.empty()) fields.emplace_back("scope", scope);
    const std::string& endpoint = server_metadata_->authorization_endpoint;
    const std::string url = endpoint + (endpoint.find('?') == std::string::npos ? "?" : "&") + form_encode(fields);
    auto redirected = options_.user_agent(url, deadline);
    if (!redirected) return redirected.error();
    if (!redirected->starts_with(options_.identity.redirect_uri))
        return Error{errors::kOauthAuthorizationDenied, "the authorization ended at " + redirected->substr(0, 300) +
                                                            ", not at skillhost's redirect URI " +
                                                            options_.identity.redirect_uri};
    const FormFields back = query_of(*redirected);
    if (form_value(back, "state") != *state)
        return Error{errors::kOauthAuthorizationDenied,
                     "the authorization's answer carries another state than skillhost sent; it is not used (a "
                     "forged or replayed redirect). Authorize again"};
    const std::string issuer = form_value(back, "iss");
    if (!issuer.empty() && !server_metadata_->issuer.empty() && issuer != server_metadata_->issuer)
        return Error{errors::kOauthAuthorizationDenied, "the authorization's answer comes from the issuer '" + issuer +
                                                            "', not from " + server_metadata_->issuer +
                                                            " (RFC 9207); it is not used. Authorize again"};
    if (const std::string refused = form_value(back, "error"); !refused.empty()) {
        const std::string description = form_value(back, "error_description");
        return Error{errors::kOauthAuthorizationDenied,
                     "the authorization server refused the authorization (" + refused +
                         (description.empty() ? std::string() : ": " + description.substr(0, 300)) + ")"};
    }
    std::string code = form_value(back, "code");
    if (code.empty() || code.size() > 4096)
        return Error{errors::kOauthFlowFailed, "the authorization's answer carries no code"};
    return code;
}

Status OAuthAuthorizer::authorize_with(const std::string& resource_metadata, const std::string& challenge_scope,
                                       bool step_up, Clock::time_point deadline) {
    if (const Status found = discover(resource_metadata, deadline); !found) return found;
    if (!options_.client_credentials && !options_.identity_provider && !options_.user_agent)
        return authorization_required();
    const std::string scope = scope_for(challenge_scope, step_up);
    const std::string target = resource();
    // The client this authorization server knows, registered once.
    std::optional<ClientRegistration> client;
    if (const std::optional<Grant> held = grant();
        held && !held->client.client_id.empty() && held->client.issuer == server_metadata_->issuer)
        client = held->client;
    if (!client) {
        auto registered = register_client(*server_metadata_, options_.identity, deadline);
        if (!registered) return registered.error();
        client = std::move(*registered);
    }
    FormFields fields;
    if (options_.identity_provider) {
        auto assertion =
            exchange_identity(*options_.identity_provider, server_metadata_->issuer, target, scope, deadline);
        if (!assertion) return assertion.error();
        fields = {{"grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"}, {"assertion", *assertion}};
        if (!scope.empty()) fields.emplace_back("scope", scope);
    } else if (options_.client_credentials) {
        fields = {{"grant_type", "client_credentials"}, {"resource", target}};
        if (!scope.empty()) fields.emplace_back("scope", scope);
    } else {
        auto pkce = make_pkce();
        if (!pkce) return pkce.error();
        auto code = obtain_code(*client, scope, target, pkce->verifier, deadline);
        if (!code) return code.error();
        fields = {{"grant_type", "authorization_code"},
                  {"code", *code},
                  {"redirect_uri", options_.identity.redirect_uri},
                  {"code_verifier", pkce->verifier},
                  {"resource", target}};
    }
    auto tokens = request_tokens(*server_metadata_, *client, std::move(fields), options_.signer, deadline);
    if (!tokens) return tokens.error();
    if (tokens->scope.empty()) tokens->scope = scope;
    adopt(std::move(*client), std::move(*tokens));
    return {};
}

}  // namespace skillhost::oauth
