// /healthz (alive), /readyz (ready to serve, or why not), /metrics (Prometheus), /v1/whoami.
#include "server/api_services.hpp"

#include <boost/json.hpp>

namespace skillhost::server {

namespace json = boost::json;

void add_health_routes(RouteTable& routes, ApiServices& s) {
    const auto started = std::chrono::steady_clock::now();
    routes.add(
        http::verb::get, "/healthz",
        [started](ApiRequest&) -> Reply {
            const auto up =
                std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started);
            return json_response(http::status::ok, json::object{{"status", "ok"}, {"uptime_s", up.count()}});
        },
        true);
    routes.add(
        http::verb::get, "/readyz",
        [&s](ApiRequest&) -> Reply {
            json::object report = s.readiness();
            const bool ready = report.at("ready").as_bool();
            return json_response(ready ? http::status::ok : http::status::service_unavailable, report);
        },
        true);
    routes.add(
        http::verb::get, "/metrics",
        [&s](ApiRequest&) -> Reply {
            return text_response(http::status::ok, s.metrics.render(s.gauges()),
                                 "text/plain; version=0.0.4; charset=utf-8");
        },
        true);
    routes.add(http::verb::get, "/v1/whoami", [](ApiRequest& req) -> Reply {
        const auto& u = *req.user;
        // The token's scopes, so a client (the console) offers only what the API will accept.
        json::array scopes;
        for (const auto scope : {auth::Scope::call, auth::Scope::approve, auth::Scope::admin})
            if (u.credential.may(scope)) scopes.push_back(json::string(auth::to_string(scope)));
        return json_response(http::status::ok, json::object{{"user_id", u.user_id},
                                                            {"role", auth::to_string(u.role)},
                                                            {"mode", auth::to_string(u.mode)},
                                                            {"trust", manifest::to_string(u.trust)},
                                                            {"workspace", u.workspace.string()},
                                                            {"scopes", std::move(scopes)},
                                                            {"token_id", u.credential.token_id}});
    });
}

}  // namespace skillhost::server
