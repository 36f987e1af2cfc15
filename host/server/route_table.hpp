// Which handler answers a method and path: patterns like /v1/runs/{id}/cancel, with {name}
// segments captured as parameters. Knows when a path exists under another method (405).
#pragma once

#include "server/api_request.hpp"
#include "server/http_exchange.hpp"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::server {

using ApiHandler = std::function<Reply(ApiRequest& request)>;

struct Route {
    http::verb method;
    std::string pattern;  // also the metrics label
    std::vector<std::string> segments;
    ApiHandler handler;
    bool public_route = false;  // answered without a token (health, readiness, metrics)
};

struct RouteMatch {
    const Route* route = nullptr;  // null: no route for this method and path
    std::map<std::string, std::string> params;
    std::vector<std::string> allowed_methods;  // when the path exists under other methods
};

class RouteTable {
public:
    void add(http::verb method, std::string pattern, ApiHandler handler, bool public_route = false);
    RouteMatch match(http::verb method, std::string_view path) const;

private:
    std::vector<Route> routes_;
};

}  // namespace skillhost::server
