#include "server/route_table.hpp"

namespace skillhost::server {

namespace {

std::vector<std::string> split_path(std::string_view path) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < path.size()) {
        if (path[start] == '/') {
            ++start;
            continue;
        }
        const auto end = path.find('/', start);
        out.emplace_back(path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return out;
}

bool matches(const Route& route, const std::vector<std::string>& parts, std::map<std::string, std::string>& params) {
    if (route.segments.size() != parts.size()) return false;
    std::map<std::string, std::string> found;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const auto& seg = route.segments[i];
        if (seg.size() > 2 && seg.front() == '{' && seg.back() == '}') {
            if (parts[i].empty()) return false;
            found[seg.substr(1, seg.size() - 2)] = parts[i];
        } else if (seg != parts[i]) {
            return false;
        }
    }
    params = std::move(found);
    return true;
}

}  // namespace

void RouteTable::add(http::verb method, std::string pattern, ApiHandler handler, bool public_route) {
    Route r{method, pattern, split_path(pattern), std::move(handler), public_route};
    routes_.push_back(std::move(r));
}

RouteMatch RouteTable::match(http::verb method, std::string_view path) const {
    RouteMatch m;
    const auto parts = split_path(path);
    for (const auto& route : routes_) {
        std::map<std::string, std::string> params;
        if (!matches(route, parts, params)) continue;
        if (route.method == method) {
            m.route = &route;
            m.params = std::move(params);
            return m;
        }
        m.allowed_methods.emplace_back(http::to_string(route.method));
    }
    return m;
}

}  // namespace skillhost::server
