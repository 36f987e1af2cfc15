// A parsed http(s) URL, as the HTTP client and models.yaml validation need it.
#pragma once

#include "base/error.hpp"

#include <string>
#include <string_view>

namespace skillhost::http {

struct Url {
    std::string scheme;  // "http" or "https"
    std::string host;    // without brackets for IPv6 literals
    std::string port;    // always set (80/443 by default)
    std::string target;  // path plus query, "/" at least

    bool is_tls() const { return scheme == "https"; }
    // Value for the Host header: the port only when it is not the scheme's default.
    std::string host_header() const;
    // scheme://host[:port] without the path.
    std::string origin() const;
};

// Error HTTP_BAD_URL naming the text when it is not an absolute http(s) URL with a host.
Result<Url> parse_url(std::string_view text);

// base + "/" + path, without doubling the slash ("http://h/v1/" + "chat" -> "http://h/v1/chat").
std::string join_url(std::string_view base, std::string_view path);

}  // namespace skillhost::http
