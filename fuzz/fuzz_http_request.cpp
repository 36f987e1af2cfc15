// libFuzzer target: raw bytes from a client, through what the daemon does with a request before a
// handler runs: Beast's parser with the server's limits, the query string, the route table with
// the daemon's patterns, and the JSON body helpers the handlers use.
#include "server/api_request.hpp"
#include "server/route_table.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using namespace skillhost::server;

const RouteTable& routes() {
    static const RouteTable table = [] {
        RouteTable t;
        const auto nothing = [](ApiRequest&) -> Reply { return Response{}; };
        for (const char* pattern : {"/healthz", "/readyz", "/metrics", "/v1/whoami", "/v1/skills", "/v1/skills/{id}",
                                    "/v1/skills/{id}/call", "/v1/runs", "/v1/runs/{id}", "/v1/runs/{id}/events",
                                    "/v1/approvals/{id}/approve", "/v1/audit", "/v1/audit/stream", "/mcp"}) {
            t.add(http::verb::get, pattern, nothing);
            t.add(http::verb::post, pattern, nothing);
        }
        return t;
    }();
    return table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(1 << 20);
    parser.header_limit(64 * 1024);
    parser.eager(true);
    boost::system::error_code ec;
    std::size_t used = 0;
    while (used < size && !parser.is_done()) {
        const std::size_t n = parser.put(boost::asio::buffer(data + used, size - used), ec);
        if (ec == http::error::need_more) break;
        if (ec) return 0;
        if (n == 0) break;
        used += n;
    }
    if (!parser.is_done()) return 0;
    Request request = parser.release();
    const std::string target(request.target());
    const auto question = target.find('?');
    ApiRequest api{request, target.substr(0, question), {}, {}, nullptr};
    if (question != std::string::npos && !parse_query(std::string_view(target).substr(question + 1), api.query))
        return 0;
    const auto match = routes().match(request.method(), api.path);
    api.params = match.params;
    try {
        (void)api.query_int("limit", 1, 1000);
        (void)api.query_flag("all");
        (void)api.query_string("user");
        auto body = api.json_body();
        allow_fields(body, {"args", "timeout_ms", "goal", "history", "max_steps"});
        (void)int_field(body, "timeout_ms", 1, 300000);
    } catch (const ApiFailure& failure) {
        (void)failure.error.to_json();
    }
    return 0;
}
