// The web console: GET / (the page) and GET /console/{hash}/{file} (its script and style), public
// like /healthz (the page holds no data; everything it shows comes from /v1 with the user's token),
// with a strict Content-Security-Policy and the other security headers on every answer.
#pragma once

#include "server/console_assets.hpp"
#include "server/route_table.hpp"

namespace skillhost::server {

// The headers every console answer carries: the page may load only its own script and style,
// talk only to this origin, never be framed, and never send a Referer.
inline constexpr const char* kConsoleContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// `assets` must outlive the routes. Query parameters are ignored, as on /healthz.
void add_console_routes(RouteTable& routes, const ConsoleAssets& assets);
// With the files embedded in this binary.
void add_console_routes(RouteTable& routes);

}  // namespace skillhost::server
