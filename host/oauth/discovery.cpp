#include "oauth/discovery.hpp"

#include "net/url.hpp"
#include "oauth/error_codes.hpp"

#include <cctype>

namespace skillhost::oauth {
namespace json = boost::json;

namespace {

// The path of a URL without its query and fragment, without a trailing slash ("" for the root).
std::string path_of(const http::Url& url) {
    std::string path = url.target.substr(0, url.target.find_first_of("?#"));
    while (!path.empty() && path.back() == '/') path.pop_back();
    return path;
}

std::string without_trailing_slash(std::string text) {
    while (text.size() > 1 && text.back() == '/') text.pop_back();
    return text;
}

bool is_object_with(const JsonReply& reply, std::string_view member) {
    return reply.status == 200 && reply.body.is_object() && reply.body.get_object().contains(member);
}

}  // namespace

std::vector<std::string> resource_metadata_urls(const std::string& server_url, const std::string& from_challenge) {
    // The URL the server names is the one asked (RFC 9728 §5.1); the well-known ones only without it.
    if (!from_challenge.empty()) return {from_challenge};
    std::vector<std::string> urls;
    auto parsed = http::parse_url(server_url);
    if (!parsed) return urls;
    const std::string path = path_of(*parsed);
    if (!path.empty()) urls.push_back(parsed->origin() + "/.well-known/oauth-protected-resource" + path);
    urls.push_back(parsed->origin() + "/.well-known/oauth-protected-resource");
    return urls;
}

std::vector<std::string> server_metadata_urls(const std::string& issuer) {
    auto parsed = http::parse_url(issuer);
    if (!parsed) return {};
    const std::string origin = parsed->origin();
    const std::string path = path_of(*parsed);
    if (path.empty())
        return {origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"};
    return {origin + "/.well-known/oauth-authorization-server" + path,
            origin + "/.well-known/openid-configuration" + path, origin + path + "/.well-known/openid-configuration"};
}

std::string canonical_resource(const std::string& server_url) {
    std::string url = server_url.substr(0, server_url.find('#'));
    const std::size_t scheme_end = url.find("://");
    if (scheme_end == std::string::npos) return url;
    std::size_t authority_end = url.find_first_of("/?", scheme_end + 3);
    if (authority_end == std::string::npos) authority_end = url.size();
    for (std::size_t i = 0; i < authority_end; ++i)
        url[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(url[i])));
    if (url.find('?', authority_end) == std::string::npos) {
        while (url.size() > authority_end && url.back() == '/') url.pop_back();
    }
    return url;
}

bool resource_covers(const std::string& resource, const std::string& server_url) {
    const std::string expected = canonical_resource(server_url);
    const std::string named = canonical_resource(resource);
    if (named.empty()) return false;
    return named == expected || expected.starts_with(named + "/");
}

Status check_oauth_url(const std::string& url, const std::string& server_url, std::string_view what) {
    auto parsed = http::parse_url(url);
    if (parsed) {
        if (parsed->is_tls()) return {};
        const std::string host = parsed->host;
        if (host == "localhost" || host == "::1" || host.starts_with("127.")) return {};
        auto server = http::parse_url(server_url);
        if (server && server->origin() == parsed->origin()) return {};
    }
    Error error{errors::kOauthUnsafeServer,
                std::string(what) + " " + url.substr(0, 300) +
                    " is not an https URL (nor on loopback, nor the MCP server's own origin); skillhost sends no "
                    "OAuth request there. Ask the server's operator to publish https endpoints"};
    error.details["url"] = url.substr(0, 300);
    return error;
}

Result<std::optional<ResourceMetadata>> discover_resource(const std::string& server_url,
                                                          const std::string& from_challenge,
                                                          Clock::time_point deadline) {
    for (const std::string& url : resource_metadata_urls(server_url, from_challenge)) {
        if (const Status safe = check_oauth_url(url, server_url, "the protected resource metadata URL"); !safe)
            return safe.error();
        auto reply = get_json(url, "the protected resource metadata", deadline, errors::kOauthDiscoveryFailed);
        if (!reply) return reply.error();
        if (!is_object_with(*reply, "resource")) continue;
        ResourceMetadata metadata;
        metadata.url = url;
        metadata.resource = string_member(reply->body, "resource");
        metadata.authorization_servers = strings_member(reply->body, "authorization_servers");
        metadata.scopes_supported = strings_member(reply->body, "scopes_supported");
        for (const std::string& issuer : metadata.authorization_servers)
            if (const Status safe = check_oauth_url(issuer, server_url, "the authorization server"); !safe)
                return safe.error();
        if (metadata.authorization_servers.empty())
            return Error{errors::kOauthDiscoveryFailed,
                         "the protected resource metadata at " + url +
                             " names no authorization server (authorization_servers); the server cannot be "
                             "authorized with OAuth. Ask its operator, or give its credentials as headers"};
        return std::optional<ResourceMetadata>(std::move(metadata));
    }
    return std::optional<ResourceMetadata>();
}

Result<ServerMetadata> discover_server(const std::string& issuer, const std::string& server_url, bool legacy,
                                       Clock::time_point deadline) {
    const std::vector<std::string> urls = server_metadata_urls(issuer);
    if (urls.empty())
        return Error{errors::kOauthDiscoveryFailed, "the authorization server '" + issuer + "' is not an http(s) URL"};
    std::string tried;
    for (const std::string& url : urls) {
        auto reply = get_json(url, "the authorization server metadata", deadline, errors::kOauthDiscoveryFailed);
        if (!reply) return reply.error();
        if (!tried.empty()) tried += ", ";
        tried += url + " (HTTP " + std::to_string(reply->status) + ")";
        if (!is_object_with(*reply, "authorization_endpoint") && !is_object_with(*reply, "token_endpoint")) continue;
        ServerMetadata metadata;
        metadata.url = url;
        metadata.issuer = string_member(reply->body, "issuer");
        metadata.authorization_endpoint = string_member(reply->body, "authorization_endpoint");
        metadata.token_endpoint = string_member(reply->body, "token_endpoint");
        metadata.registration_endpoint = string_member(reply->body, "registration_endpoint");
        metadata.scopes_supported = strings_member(reply->body, "scopes_supported");
        metadata.token_endpoint_auth_methods_supported =
            strings_member(reply->body, "token_endpoint_auth_methods_supported");
        metadata.code_challenge_methods_supported = strings_member(reply->body, "code_challenge_methods_supported");
        metadata.grant_types_supported = strings_member(reply->body, "grant_types_supported");
        const json::value* cimd = reply->body.get_object().if_contains("client_id_metadata_document_supported");
        metadata.client_id_metadata_document_supported = cimd != nullptr && cimd->is_bool() && cimd->get_bool();
        // A 2025-03-26 server's metadata sits at its origin whatever issuer it names.
        if (!legacy && !metadata.issuer.empty() &&
            without_trailing_slash(metadata.issuer) != without_trailing_slash(issuer))
            return Error{errors::kOauthUnsafeServer,
                         "the authorization server metadata at " + url + " names the issuer '" + metadata.issuer +
                             "', not '" + issuer +
                             "' it was asked for (RFC 8414 §3.3); its tokens are not asked for. Check the "
                             "server's authorization_servers"};
        if (metadata.token_endpoint.empty())
            return Error{errors::kOauthDiscoveryFailed,
                         "the authorization server metadata at " + url + " names no token_endpoint"};
        for (const auto& [endpoint, name] : {std::pair{&metadata.authorization_endpoint, "its authorization_endpoint"},
                                             std::pair{&metadata.token_endpoint, "its token_endpoint"},
                                             std::pair{&metadata.registration_endpoint, "its registration_endpoint"}}) {
            if (endpoint->empty()) continue;
            if (const Status safe = check_oauth_url(*endpoint, server_url, name); !safe) return safe.error();
        }
        return metadata;
    }
    if (legacy) {
        auto parsed = http::parse_url(issuer);
        ServerMetadata metadata;
        metadata.issuer = parsed->origin();
        metadata.authorization_endpoint = metadata.issuer + "/authorize";
        metadata.token_endpoint = metadata.issuer + "/token";
        metadata.registration_endpoint = metadata.issuer + "/register";
        metadata.defaults = true;
        return metadata;
    }
    return Error{errors::kOauthDiscoveryFailed, "no metadata of the authorization server '" + issuer +
                                                    "' was found; tried " + tried +
                                                    ". Check the server's authorization_servers"};
}

}  // namespace skillhost::oauth
