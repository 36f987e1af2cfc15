// skillhost_mcp_conformance_client URL: the client the MCP conformance suite's client scenarios
// drive (`conformance client --command ...` appends the URL of the server it started for the
// scenario named in MCP_CONFORMANCE_SCENARIO). It is skillhost's own upstream side, nothing written
// for the suite: McpClient over the Streamable HTTP transport (upstream::HttpChannel), as a foreign
// streamable_http server's session runs. It initializes, lists the tools and calls each with the
// arguments its scenario expects, then ends the session; the server's elicitation requests are
// accepted with the defaults of their schema (what SEP-1034 asks of a client that has no one to ask).
// Exit 0 when every step succeeded, 1 otherwise (the suite judges the checks either way).
#include "upstream/http_channel.hpp"
#include "upstream/error_codes.hpp"
#include "upstream/mcp_client.hpp"

#include <boost/json.hpp>

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
    auto channel = std::make_shared<upstream::HttpChannel>("the conformance server", upstream::HttpEndpoint{url, {}},
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
