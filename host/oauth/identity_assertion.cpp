#include "oauth/identity_assertion.hpp"

#include "oauth/error_codes.hpp"

namespace skillhost::oauth {

Result<std::string> exchange_identity(const IdentityProvider& provider, const std::string& audience,
                                      const std::string& resource, const std::string& scope,
                                      Clock::time_point deadline) {
    FormFields fields{{"grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"},
                      {"requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"},
                      {"subject_token", provider.id_token},
                      {"subject_token_type", "urn:ietf:params:oauth:token-type:id_token"},
                      {"audience", audience},
                      {"resource", resource}};
    if (!scope.empty()) fields.emplace_back("scope", scope);
    if (!provider.client_id.empty()) fields.emplace_back("client_id", provider.client_id);
    auto reply =
        post_form(provider.token_endpoint, fields, {}, "an identity assertion", deadline, errors::kOauthTokenFailed);
    if (!reply) return reply.error();
    if (reply->status != 200)
        return Error{errors::kOauthTokenFailed, "the identity provider's token endpoint " + provider.token_endpoint +
                                                    " refused to exchange the ID token (" + describe_refusal(*reply) +
                                                    "); sign in to the identity provider again"};
    std::string assertion = string_member(reply->body, "access_token");
    const std::string type = string_member(reply->body, "issued_token_type");
    if (assertion.empty() || assertion.size() > 16384 || type != "urn:ietf:params:oauth:token-type:id-jag")
        return Error{errors::kOauthTokenFailed,
                     "the identity provider's token endpoint " + provider.token_endpoint +
                         " answered without an identity assertion grant (issued_token_type '" + type + "')"};
    return assertion;
}

}  // namespace skillhost::oauth
