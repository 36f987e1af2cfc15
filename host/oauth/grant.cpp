#include "oauth/grant.hpp"

#include "oauth/error_codes.hpp"
#include "oauth/http_json.hpp"

#include <boost/json/object.hpp>

namespace skillhost::oauth {
namespace json = boost::json;

json::value grant_to_json(const Grant& grant) {
    return json::object{{"version", 1},
                        {"resource", grant.resource},
                        {"client", json::object{{"issuer", grant.client.issuer},
                                                {"client_id", grant.client.client_id},
                                                {"client_secret", grant.client.client_secret},
                                                {"auth_method", grant.client.auth_method}}},
                        {"tokens", json::object{{"access_token", grant.tokens.access_token},
                                                {"refresh_token", grant.tokens.refresh_token},
                                                {"scope", grant.tokens.scope},
                                                {"expires_at", grant.tokens.expires_at}}}};
}

Result<Grant> grant_from_json(const json::value& value) {
    const json::object* object = value.if_object();
    const json::value* version = object != nullptr ? object->if_contains("version") : nullptr;
    const json::value* client = object != nullptr ? object->if_contains("client") : nullptr;
    const json::value* tokens = object != nullptr ? object->if_contains("tokens") : nullptr;
    if (version == nullptr || !version->is_int64() || version->get_int64() != 1 || client == nullptr ||
        !client->is_object() || tokens == nullptr || !tokens->is_object())
        return Error{errors::kOauthFlowFailed,
                     "the stored OAuth grant is not one this version of skillhost wrote; authorize again"};
    Grant grant;
    grant.resource = string_member(value, "resource");
    grant.client.issuer = string_member(*client, "issuer");
    grant.client.client_id = string_member(*client, "client_id");
    grant.client.client_secret = string_member(*client, "client_secret");
    grant.client.auth_method = string_member(*client, "auth_method");
    grant.tokens.access_token = string_member(*tokens, "access_token");
    grant.tokens.refresh_token = string_member(*tokens, "refresh_token");
    grant.tokens.scope = string_member(*tokens, "scope");
    const json::value* expires = tokens->get_object().if_contains("expires_at");
    if (expires != nullptr && expires->is_int64()) grant.tokens.expires_at = expires->get_int64();
    return grant;
}

}  // namespace skillhost::oauth
