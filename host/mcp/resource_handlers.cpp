// resources/list, resources/templates/list, resources/read, resources/subscribe and
// resources/unsubscribe: what exec::ResourceAccess returns for the session's user, in MCP's shapes.
// A read runs on the thread that handed the request in (plugins answer within ResourceAccess's
// deadline); it is not a tool call, so it is neither queued nor cancellable.
#include "mcp/json_rpc.hpp"
#include "mcp/list_page.hpp"
#include "mcp/mcp_session.hpp"
#include "mcp/rpc_error.hpp"
#include "exec/error_codes.hpp"

#include <optional>
#include <vector>

namespace skillhost::mcp {

namespace json = boost::json;

namespace {

// The MCP error for a resource that does not exist (or that this user may not read).
constexpr int kResourceNotFound = -32002;
// More subscriptions than a client can sensibly watch are refused.
constexpr std::size_t kMaxSubscriptions = 256;

const json::string* uri_param(const json::value& params) {
    const json::object* p = params.if_object();
    const json::value* uri = p ? p->if_contains("uri") : nullptr;
    return uri && uri->is_string() ? &uri->get_string() : nullptr;
}

}  // namespace

void McpSession::on_resources_list(const json::value& id, const json::value& params, bool templates) {
    const char* method = templates ? "resources/templates/list" : "resources/list";
    std::optional<std::string> cursor;
    if (!read_cursor(params, cursor))
        return send(make_error(id, rpc_code::invalid_params,
                               std::string("params.cursor must be a string (a nextCursor from ") + method + ")"));
    auto snapshot = catalog_.snapshot();
    if (templates)
        return send(make_result(id, page_of(resources_.list_templates(*snapshot, user_), "uriTemplate",
                                            "resourceTemplates", cursor, options_.page_size)));
    json::array listed = resources_.list(*snapshot, user_);
    remember_listed(listed_resources_, listed, "uri");
    send(make_result(id, page_of(std::move(listed), "uri", "resources", cursor, options_.page_size)));
}

void McpSession::on_resources_read(const json::value& id, const json::value& params) {
    const json::string* uri = uri_param(params);
    if (!uri)
        return send(make_error(id, rpc_code::invalid_params,
                               "resources/read needs params.uri, a uri from resources/list or a resource template"));
    auto snapshot = catalog_.snapshot();
    auto contents = resources_.read(*snapshot, user_, *uri);
    if (contents) return send(make_result(id, json::object{{"contents", std::move(*contents)}}));
    const Error& e = contents.error();
    // MCP's own code for a resource that does not exist, also for one this user may not read.
    if (e.kind() == ErrorKind::not_found || e.is(errors::kPathNotAllowed)) {
        json::object data = e.to_json();
        data["uri"] = *uri;
        return send(make_error(id, kResourceNotFound, "Resource not found: " + e.message, std::move(data)));
    }
    send(rpc_error(id, e));
}

void McpSession::on_resources_subscribe(const json::value& id, const json::value& params, bool subscribe) {
    const json::string* uri = uri_param(params);
    const char* method = subscribe ? "resources/subscribe" : "resources/unsubscribe";
    if (!uri || uri->empty() || uri->size() > exec::ResourceAccess::kMaxUriBytes)
        return send(make_error(id, rpc_code::invalid_params,
                               std::string(method) + " needs params.uri, a resource uri of at most " +
                                   std::to_string(exec::ResourceAccess::kMaxUriBytes) + " bytes"));
    {
        std::lock_guard lock(resources_mutex_);
        if (!subscribe) {
            if (auto found = subscriptions_.find(std::string_view(*uri)); found != subscriptions_.end())
                subscriptions_.erase(found);
        } else if (!subscriptions_.contains(std::string_view(*uri))) {
            if (subscriptions_.size() >= kMaxSubscriptions)
                return send(make_error(id, rpc_code::invalid_params,
                                       "this session already has " + std::to_string(kMaxSubscriptions) +
                                           " resource subscriptions; unsubscribe from some first"));
            subscriptions_.emplace(*uri);
        }
    }
    send(make_result(id, json::object()));
}

void McpSession::on_resources_update(const catalog::CatalogSnapshot& snapshot) {
    auto fingerprints = resources_.source_fingerprints(snapshot, user_);
    std::vector<std::string> updated;
    bool list_changed = false;
    {
        std::lock_guard lock(resources_mutex_);
        if (fingerprints == resource_fingerprints_) return;
        list_changed = true;
        // A subscribed uri changed when the loads serving any prefix it starts with changed.
        for (const std::string& uri : subscriptions_) {
            auto serving = [&](const std::map<std::string, std::string, std::less<>>& by_prefix) {
                std::string out;
                for (const auto& [prefix, loads] : by_prefix)
                    if (uri.compare(0, prefix.size(), prefix) == 0) out += loads;
                return out;
            };
            if (serving(fingerprints) != serving(resource_fingerprints_)) updated.push_back(uri);
        }
        resource_fingerprints_ = std::move(fingerprints);
    }
    if (!initialize_answered_.load()) return;
    if (list_changed) send(make_notification("notifications/resources/list_changed", json::object()));
    for (const std::string& uri : updated)
        send(make_notification("notifications/resources/updated", json::object{{"uri", uri}}));
}

}  // namespace skillhost::mcp
