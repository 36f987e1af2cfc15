// /v1/definition_changes: changed definitions of foreign MCP servers' tools (list, show), and an
// owner's decision on one: POST /v1/definition_changes/{id}/approve pins the new definition (the
// tool is callable as the server now lists it), .../reject keeps it refused.
#include "server/api_decision_listing.hpp"
#include "server/api_services.hpp"

#include "app/definition_change_actions.hpp"

#include <boost/json.hpp>

namespace skillhost::server {

namespace json = boost::json;

namespace {

Reply decided(Result<decisions::DefinitionChangeRecord> record) {
    if (!record) throw ApiFailure(record.error());
    return json_response(http::status::ok, json::object{{"definition_change", record->to_json()}});
}

Reply approve(ApiServices& s, ApiRequest& req) {
    req.allow_query({});
    allow_fields(req.json_body(), {});
    const std::string id = req.param("id");
    (void)visible_decision<decisions::DefinitionChangeRecord>(s, req, id);
    return decided(app::approve_definition_change(s.host, id, *req.user));
}

Reply reject(ApiServices& s, ApiRequest& req) {
    req.allow_query({});
    json::object body = req.json_body();
    const std::string reason = decision_reason(body, "say why the changed tool stays refused");
    const std::string id = req.param("id");
    (void)visible_decision<decisions::DefinitionChangeRecord>(s, req, id);
    return decided(app::reject_definition_change(s.host, id, *req.user, reason));
}

}  // namespace

void add_definition_change_routes(RouteTable& routes, ApiServices& s) {
    add_decision_read_routes<decisions::DefinitionChangeRecord, decisions::DefinitionChangeState>(routes, s,
                                                                                                  "definition_changes");
    routes.add(http::verb::post, "/v1/definition_changes/{id}/approve",
               [&s](ApiRequest& req) { return approve(s, req); });
    routes.add(http::verb::post, "/v1/definition_changes/{id}/reject",
               [&s](ApiRequest& req) { return reject(s, req); });
}

}  // namespace skillhost::server
