// Finding out how a protected MCP server is authorized, as the MCP authorization spec orders it:
// its protected resource metadata (RFC 9728; from the challenge's resource_metadata, else the
// well-known URL with the server's path, else at its root), then the metadata of the authorization
// server that names (RFC 8414 and OpenID Connect Discovery, path-inserted first). A server of the
// 2025-03-26 revision has no resource metadata: its own origin is the authorization server, and
// without metadata there the default endpoints /authorize, /token and /register are used.
#pragma once

#include "base/error.hpp"
#include "oauth/http_json.hpp"

#include <optional>
#include <string>
#include <vector>

namespace skillhost::oauth {

struct ResourceMetadata {
    std::string url;       // where it was read
    std::string resource;  // the protected resource's identifier
    std::vector<std::string> authorization_servers;
    std::vector<std::string> scopes_supported;
};

struct ServerMetadata {
    std::string url;  // where it was read ("" for the default endpoints)
    std::string issuer;
    std::string authorization_endpoint;
    std::string token_endpoint;
    std::string registration_endpoint;
    std::vector<std::string> scopes_supported;
    std::vector<std::string> token_endpoint_auth_methods_supported;
    std::vector<std::string> code_challenge_methods_supported;
    std::vector<std::string> grant_types_supported;
    bool client_id_metadata_document_supported = false;
    bool defaults = false;  // no metadata was found: the 2025-03-26 default endpoints
};

// The URLs tried for the resource metadata of `server_url`, in order: the one the challenge names
// alone when it names one.
std::vector<std::string> resource_metadata_urls(const std::string& server_url, const std::string& from_challenge);
// The URLs tried for the metadata of the authorization server `issuer`, in order.
std::vector<std::string> server_metadata_urls(const std::string& issuer);
// The canonical URI of an MCP server (RFC 8707 `resource`): scheme and host lower-case, no
// fragment, no trailing slash after a path.
std::string canonical_resource(const std::string& server_url);
// Whether the metadata's `resource` names the server at `server_url` (the same, or a prefix of its
// path on the same origin).
bool resource_covers(const std::string& resource, const std::string& server_url);

// Whether skillhost sends an OAuth request to `url` for the MCP server at `server_url`: https, or a
// loopback host, or the server's own origin (its operator chose that one). Anything else (plain
// http to another host, another scheme) is OAUTH_UNSAFE_SERVER naming `what`: a server's metadata
// cannot send skillhost's requests, codes or credentials in the clear or into the host's network.
Status check_oauth_url(const std::string& url, const std::string& server_url, std::string_view what);

// The resource metadata of the server, nullopt when none is published (every URL answered 404 or
// not JSON: a 2025-03-26 server). OAUTH_DISCOVERY_FAILED when it cannot be reached.
Result<std::optional<ResourceMetadata>> discover_resource(const std::string& server_url,
                                                          const std::string& from_challenge,
                                                          Clock::time_point deadline);
// The authorization server's metadata; for a 2025-03-26 server (`legacy`) with none published, its
// default endpoints. OAUTH_DISCOVERY_FAILED naming every URL tried otherwise; OAUTH_UNSAFE_SERVER
// for an endpoint check_oauth_url refuses.
Result<ServerMetadata> discover_server(const std::string& issuer, const std::string& server_url, bool legacy,
                                       Clock::time_point deadline);

}  // namespace skillhost::oauth
