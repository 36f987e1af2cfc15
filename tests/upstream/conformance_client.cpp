// skillhost_mcp_conformance_client URL: the client the MCP conformance suite's client scenarios
// drive (`conformance client --command ...` appends the URL of the server it started for the
// scenario named in MCP_CONFORMANCE_SCENARIO). It is skillhost's own upstream side, nothing written
// for the suite: McpClient over the Streamable HTTP transport (upstream::HttpChannel), as a foreign
// streamable_http server's session runs. It initializes, lists the tools and calls each with the
// arguments its scenario expects, then ends the session; the server's elicitation requests are
// accepted with the defaults of their schema (what SEP-1034 asks of a client that has no one to ask).
// The session authorizes with skillhost's OAuth client (oauth::OAuthAuthorizer) when the server
// refuses it: the suite's authorization servers consent at once, so the user agent here is what a
// browser would do, a GET of the authorization URL whose redirect (not followed) carries the code.
// The scenario's context (MCP_CONFORMANCE_CONTEXT) gives what a user would configure: a client
// registered beforehand, a signing key for client credentials, an identity provider's ID token.
// Exit 0 when every step succeeded, 1 otherwise (the suite judges the checks either way).
#include "net/http_client.hpp"
#include "oauth/client_assertion.hpp"
#include "oauth/oauth_authorizer.hpp"
#include "upstream/http_channel.hpp"
#include "upstream/error_codes.hpp"
#include "upstream/mcp_client.hpp"

#include <boost/json.hpp>

#include <memory>

#include <cstdlib>
#include <iostream>
#include <string>

namespace {

namespace json = boost::json;
namespace upstream = skillhost::upstream;

// An elicitation/create answered "accept", each field of the requested schema at its default.
json::value accept_with_defaults(const json::value& params) {
    json::object content;
    const json::object* request = params.if_object();
    const json::value* schema = request != nullptr ? request->if_contains("requestedSchema") : nullptr;
    const json::value* properties =
        schema != nullptr && schema->is_object() ? schema->get_object().if_contains("properties") : nullptr;
    if (properties != nullptr && properties->is_object()) {
        for (const auto& [name, property] : properties->get_object()) {
            const json::value* fallback = property.is_object() ? property.get_object().if_contains("default") : nullptr;
            if (fallback != nullptr) content[name] = *fallback;
        }
    }
    return json::object{{"action", "accept"}, {"content", std::move(content)}};
}

// The arguments a scenario's tool is called with.
json::object arguments_for(const std::string& tool) {
    if (tool == "add_numbers") return json::object{{"a", 2}, {"b", 3}};
    return json::object{};
}

std::string context_text(const json::object& context, std::string_view name) {
    const json::value* value = context.if_contains(name);
    return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

// What a browser does at an authorization server that consents without asking: it is redirected.
skillhost::Result<std::string> follow_consent(const std::string& authorization_url,
                                              upstream::Clock::time_point deadline) {
    skillhost::http::HttpClientOptions options;
    options.max_retries = 0;
    options.total_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - upstream::Clock::now());
    auto response = skillhost::http::send_http_request({"GET", authorization_url, {}, ""}, options);
    if (!response) return response.error();
    const std::string location = response->header("location");
    if (response->status / 100 != 3 || location.empty())
        return skillhost::Error{
            skillhost::errors::kUpstreamError,
            "the authorization page answered HTTP " + std::to_string(response->status) + " without a redirect"};
    return location;
}

// The OAuth client a user of this scenario would configure.
skillhost::Result<std::shared_ptr<skillhost::oauth::OAuthAuthorizer>> authorizer_for(const std::string& url,
                                                                                     const std::string& scenario) {
    namespace oauth = skillhost::oauth;
    json::object context;
    if (const char* text = std::getenv("MCP_CONFORMANCE_CONTEXT"); text != nullptr) {
        std::error_code ec;
        json::value parsed = json::parse(text, ec);
        if (!ec && parsed.is_object()) context = parsed.get_object();
    }
    oauth::AuthorizerOptions options;
    options.server_url = url;
    options.label = "the conformance server";
    options.identity.client_name = "skillhost conformance client";
    options.identity.redirect_uri = "http://localhost:3000/callback";
    options.identity.metadata_url = "https://conformance-test.local/client-metadata.json";
    options.identity.client_id = context_text(context, "client_id");
    options.identity.client_secret = context_text(context, "client_secret");
    options.user_agent = follow_consent;
    if (const std::string key = context_text(context, "private_key_pem"); !key.empty()) {
        std::string algorithm = context_text(context, "signing_algorithm");
        auto signer = oauth::client_assertion_signer(key, algorithm.empty() ? "ES256" : algorithm);
        if (!signer) return signer.error();
        options.signer = std::move(*signer);
        options.identity.auth_method = "private_key_jwt";
    }
    options.client_credentials = scenario.find("client-credentials") != std::string::npos;
    if (const std::string id_token = context_text(context, "idp_id_token"); !id_token.empty())
        options.identity_provider = oauth::IdentityProvider{context_text(context, "idp_token_endpoint"),
                                                            context_text(context, "idp_client_id"), id_token};
    return std::make_shared<oauth::OAuthAuthorizer>(std::move(options));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: skillhost_mcp_conformance_client URL (the conformance suite appends it)\n";
        return 2;
    }
    const std::string url = argv[argc - 1];
    const char* scenario = std::getenv("MCP_CONFORMANCE_SCENARIO");
    std::cerr << "scenario " << (scenario != nullptr ? scenario : "(none)") << " at " << url << "\n";

    upstream::RpcHandlers handlers;
    handlers.on_request = [](std::string_view method, const json::value& params, upstream::Responder respond) {
        std::cerr << "server asks " << method << "\n";
        if (method == "elicitation/create") return respond(accept_with_defaults(params));
        if (method == "roots/list") return respond(json::value(json::object{{"roots", json::array{}}}));
        respond(skillhost::Error{skillhost::errors::kUpstreamError, "not offered: " + std::string(method)});
    };
    auto authorizer = authorizer_for(url, scenario != nullptr ? scenario : "");
    if (!authorizer) {
        std::cerr << "oauth: " << authorizer.error().code << ": " << authorizer.error().message << "\n";
        return 1;
    }
    auto channel =
        std::make_shared<upstream::HttpChannel>("the conformance server", upstream::HttpEndpoint{url, {}, *authorizer},
                                                upstream::RpcLimits{}, std::move(handlers));
    upstream::McpClient client(channel);
    const auto deadline = [] { return upstream::Clock::now() + std::chrono::seconds(20); };
    json::object capabilities{{"roots", json::object{{"listChanged", false}}}, {"elicitation", json::object{}}};
    auto info = client.initialize(capabilities, "1.0.0", deadline());
    if (!info) {
        std::cerr << "initialize: " << info.error().code << ": " << info.error().message << "\n";
        return 1;
    }
    std::cerr << "server " << info->name << " " << info->version << ", protocol " << info->protocol_version << "\n";
    auto tools = client.list_tools({}, deadline());
    if (!tools) {
        std::cerr << "tools/list: " << tools.error().code << ": " << tools.error().message << "\n";
        return 1;
    }
    int failures = 0;
    for (const auto& tool : tools->tools) {
        auto result = client.call_tool(tool.name, arguments_for(tool.name), deadline(), nullptr);
        if (!result) {
            std::cerr << "tools/call " << tool.name << ": " << result.error().code << ": " << result.error().message
                      << "\n";
            ++failures;
            continue;
        }
        std::cerr << "tools/call " << tool.name << ": " << json::serialize(*result) << "\n";
    }
    channel->close("the scenario is done");
    return failures == 0 ? 0 : 1;
}
