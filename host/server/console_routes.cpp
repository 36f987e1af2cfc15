#include "server/console_routes.hpp"
#include "server/error_codes.hpp"

#include "server/api_error.hpp"

namespace skillhost::server {

namespace {

void set_security_headers(Response& r) {
    r.set("Content-Security-Policy", kConsoleContentSecurityPolicy);
    r.set("X-Content-Type-Options", "nosniff");
    r.set("X-Frame-Options", "DENY");
    r.set("Referrer-Policy", "no-referrer");
    r.set("Cross-Origin-Opener-Policy", "same-origin");
    r.set("Cross-Origin-Resource-Policy", "same-origin");
    r.set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
}

// The page is revalidated on every load (its ETag changes with any file); the hashed files are
// immutable. If-None-Match with the current ETag is answered 304 without a body.
Reply serve(const ApiRequest& req, const ConsoleAsset& asset, bool immutable) {
    const std::string etag = "\"" + asset.hash + "\"";
    const auto if_none_match = req.raw[http::field::if_none_match];
    Response r = if_none_match == etag ? text_response(http::status::not_modified, "", asset.content_type)
                                       : text_response(http::status::ok, asset.body, asset.content_type);
    if (r.result() == http::status::not_modified) r.erase(http::field::content_type);
    r.set(http::field::etag, etag);
    r.set(http::field::cache_control, immutable ? "public, max-age=31536000, immutable" : "no-cache");
    set_security_headers(r);
    return r;
}

}  // namespace

void add_console_routes(RouteTable& routes, const ConsoleAssets& assets) {
    routes.add(
        http::verb::get, "/", [&assets](ApiRequest& req) -> Reply { return serve(req, assets.page(), false); }, true);
    routes.add(
        http::verb::get, "/console/{hash}/{file}",
        [&assets](ApiRequest& req) -> Reply {
            const ConsoleAsset* asset = assets.find(req.param("hash"), req.param("file"));
            if (!asset) {
                // Says nothing about what exists: the page names its files, nobody else needs to.
                Error e{errors::kNotFound,
                        "no console file at this path; reload the console page (/) to get the current one",
                        {},
                        {}};
                Response r = error_response(e, req.raw.version());
                set_security_headers(r);
                return r;
            }
            return serve(req, *asset, true);
        },
        true);
}

void add_console_routes(RouteTable& routes) {
    static const ConsoleAssets embedded;
    add_console_routes(routes, embedded);
}

}  // namespace skillhost::server
