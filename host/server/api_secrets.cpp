// /v1/secrets: the caller's secrets for foreign MCP servers. GET lists their names (never values),
// PUT /v1/secrets/{name} with {"value": "..."} sets one, DELETE removes it. An owner with the admin
// scope may name another user with ?user=.
#include "server/api_services.hpp"

#include "app/secret_actions.hpp"
#include "base/utc_time.hpp"

#include <boost/json.hpp>

namespace skillhost::server {

namespace json = boost::json;

namespace {

std::string whose(const ApiRequest& req) {
    return req.query_string("user").value_or(req.user->user_id);
}

Reply list(ApiServices& s, ApiRequest& req) {
    req.allow_query({"user"});
    auto entries = app::list_user_secrets(s.host, *req.user, whose(req));
    if (!entries) throw ApiFailure(entries.error());
    json::array out;
    for (const auto& entry : entries.value())
        out.push_back({{"name", entry.name},
                       {"updated_at", format_utc_timestamp(TimePoint(std::chrono::milliseconds(entry.updated_at_ms)))},
                       {"updated_by", entry.updated_by}});
    return json_response(http::status::ok, json::object{{"user_id", whose(req)}, {"secrets", std::move(out)}});
}

Reply put(ApiServices& s, ApiRequest& req) {
    req.allow_query({"user"});
    const json::object body = req.json_body();
    allow_fields(body, {"value"});
    const std::string value = string_field(body, "value", true).value_or("");
    const std::string name = req.param("name");
    if (auto set = app::set_user_secret(s.host, *req.user, whose(req), name, value); !set)
        throw ApiFailure(set.error());
    return json_response(http::status::ok, json::object{{"secret", name}, {"user_id", whose(req)}, {"set", true}});
}

Reply remove(ApiServices& s, ApiRequest& req) {
    req.allow_query({"user"});
    const std::string name = req.param("name");
    if (auto removed = app::delete_user_secret(s.host, *req.user, whose(req), name); !removed)
        throw ApiFailure(removed.error());
    return json_response(http::status::ok, json::object{{"secret", name}, {"user_id", whose(req)}, {"deleted", true}});
}

}  // namespace

void add_secret_routes(RouteTable& routes, ApiServices& s) {
    routes.add(http::verb::get, "/v1/secrets", [&s](ApiRequest& req) { return list(s, req); });
    routes.add(http::verb::put, "/v1/secrets/{name}", [&s](ApiRequest& req) { return put(s, req); });
    routes.add(http::verb::delete_, "/v1/secrets/{name}", [&s](ApiRequest& req) { return remove(s, req); });
}

}  // namespace skillhost::server
