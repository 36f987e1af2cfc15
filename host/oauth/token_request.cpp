#include "oauth/token_request.hpp"

#include "oauth/base64.hpp"
#include "oauth/error_codes.hpp"

#include <algorithm>
#include <chrono>

namespace skillhost::oauth {
namespace json = boost::json;

namespace {

bool offers(const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

std::int64_t now_seconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

std::string token_auth_method(const ServerMetadata& server, const ClientRegistration& client) {
    if (!client.auth_method.empty()) return client.auth_method;
    if (client.client_secret.empty()) return "none";
    const auto& offered = server.token_endpoint_auth_methods_supported;
    if (offered.empty() || offers(offered, "client_secret_basic")) return "client_secret_basic";
    if (offers(offered, "client_secret_post")) return "client_secret_post";
    if (offers(offered, "none")) return "none";  // a secret the server does not ask for is not sent
    return "client_secret_basic";
}

Result<Tokens> request_tokens(const ServerMetadata& server, const ClientRegistration& client, FormFields grant,
                              const ClientAssertionSigner& signer, Clock::time_point deadline) {
    Headers headers;
    const std::string method = token_auth_method(server, client);
    if (method == "client_secret_basic") {
        // RFC 6749 §2.3.1: each part form-encoded before they are joined.
        headers.emplace_back("Authorization", "Basic " + base64(percent_encode(client.client_id) + ":" +
                                                                percent_encode(client.client_secret)));
    } else if (method == "client_secret_post") {
        grant.emplace_back("client_id", client.client_id);
        grant.emplace_back("client_secret", client.client_secret);
    } else if (method == "private_key_jwt") {
        if (!signer)
            return Error{errors::kOauthTokenFailed,
                         "the client '" + client.client_id +
                             "' is registered for private_key_jwt, and no signing key is configured for it"};
        auto assertion = signer(client.client_id, server.issuer.empty() ? server.token_endpoint : server.issuer);
        if (!assertion) return assertion.error();
        grant.emplace_back("client_id", client.client_id);
        grant.emplace_back("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
        grant.emplace_back("client_assertion", *assertion);
    } else {
        grant.emplace_back("client_id", client.client_id);
    }
    const std::string asked_scope = form_value(grant, "scope");
    auto reply = post_form(server.token_endpoint, grant, headers, "tokens", deadline, errors::kOauthTokenFailed);
    if (!reply) return reply.error();
    if (reply->status != 200) {
        Error error{errors::kOauthTokenFailed, "the token endpoint " + server.token_endpoint + " refused the " +
                                                   form_value(grant, "grant_type") + " grant (" +
                                                   describe_refusal(*reply) + ")"};
        error.details["http_status"] = reply->status;
        error.details["oauth_error"] = string_member(reply->body, "error");
        return error;
    }
    Tokens tokens;
    tokens.access_token = string_member(reply->body, "access_token");
    const std::string type = string_member(reply->body, "token_type");
    if (tokens.access_token.empty() || tokens.access_token.size() > 16384)
        return Error{errors::kOauthTokenFailed,
                     "the token endpoint " + server.token_endpoint + " answered without a usable access_token"};
    if (!type.empty() && type != "Bearer" && type != "bearer")
        return Error{errors::kOauthTokenFailed, "the token endpoint " + server.token_endpoint + " issued a '" + type +
                                                    "' token; skillhost sends Bearer tokens only"};
    tokens.refresh_token = string_member(reply->body, "refresh_token");
    tokens.scope = string_member(reply->body, "scope");
    if (tokens.scope.empty()) tokens.scope = asked_scope;
    const json::object& body = reply->body.get_object();
    if (const json::value* expires = body.if_contains("expires_in"); expires != nullptr && expires->is_number()) {
        const double seconds = expires->to_number<double>();
        if (seconds > 0 && seconds < 1e9) tokens.expires_at = now_seconds() + static_cast<std::int64_t>(seconds);
    }
    return tokens;
}

}  // namespace skillhost::oauth
