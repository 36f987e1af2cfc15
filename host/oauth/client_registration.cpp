#include "oauth/client_registration.hpp"

#include "oauth/error_codes.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>

namespace skillhost::oauth {
namespace json = boost::json;

namespace {

// The method a dynamically registered client asks for: a secret it can keep (skillhost keeps its
// grants sealed) when the server offers one, else none.
std::string requested_auth_method(const ServerMetadata& server) {
    const auto& offered = server.token_endpoint_auth_methods_supported;
    if (offered.empty()) return "client_secret_basic";
    for (const char* method : {"client_secret_basic", "client_secret_post", "none"})
        if (std::find(offered.begin(), offered.end(), method) != offered.end()) return method;
    return offered.front();
}

}  // namespace

Result<ClientRegistration> register_client(const ServerMetadata& server, const ClientIdentity& identity,
                                           Clock::time_point deadline) {
    ClientRegistration registration;
    registration.issuer = server.issuer;
    if (!identity.client_id.empty()) {
        registration.client_id = identity.client_id;
        registration.client_secret = identity.client_secret;
        registration.auth_method = identity.auth_method;
        return registration;
    }
    if (!identity.metadata_url.empty() && server.client_id_metadata_document_supported) {
        registration.client_id = identity.metadata_url;
        registration.auth_method = "none";
        return registration;
    }
    if (server.registration_endpoint.empty())
        return Error{errors::kOauthRegistrationFailed,
                     "the authorization server " + server.issuer +
                         " offers no dynamic client registration and takes no client ID metadata document "
                         "skillhost has; register a client there and give its client_id (and client_secret) in "
                         "the server's declaration (oauth.client_id)"};
    json::array redirect_uris;
    if (!identity.redirect_uri.empty()) redirect_uris.emplace_back(identity.redirect_uri);
    json::array grant_types;
    for (const std::string& type : identity.grant_types) grant_types.emplace_back(type);
    json::object request{{"client_name", identity.client_name},
                         {"redirect_uris", std::move(redirect_uris)},
                         {"grant_types", std::move(grant_types)},
                         {"response_types", json::array{"code"}},
                         {"token_endpoint_auth_method", requested_auth_method(server)}};
    auto reply = post_json(server.registration_endpoint, request, "a client registration", deadline,
                           errors::kOauthRegistrationFailed);
    if (!reply) return reply.error();
    if (reply->status != 200 && reply->status != 201)
        return Error{errors::kOauthRegistrationFailed, "the registration endpoint " + server.registration_endpoint +
                                                           " refused to register skillhost (" +
                                                           describe_refusal(*reply) + ")"};
    registration.client_id = string_member(reply->body, "client_id");
    registration.client_secret = string_member(reply->body, "client_secret");
    registration.auth_method = string_member(reply->body, "token_endpoint_auth_method");
    if (registration.client_id.empty() || registration.client_id.size() > 2048)
        return Error{errors::kOauthRegistrationFailed,
                     "the registration endpoint " + server.registration_endpoint + " answered without a client_id"};
    if (registration.auth_method.empty() && registration.client_secret.empty()) registration.auth_method = "none";
    return registration;
}

}  // namespace skillhost::oauth
