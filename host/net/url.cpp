#include "net/url.hpp"
#include "net/error_codes.hpp"

#include <cctype>

namespace skillhost::http {
namespace {

Error bad_url(std::string_view text, std::string_view why) {
    Error error{errors::kHttpBadUrl,
                "'" + std::string(text) + "' is not a usable URL: " + std::string(why) +
                    " — write it as http://HOST:PORT or https://HOST[:PORT][/path]",
                {},
                {}};
    error.details["url"] = std::string(text);
    return error;
}

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
}

}  // namespace

std::string Url::host_header() const {
    const bool default_port = (scheme == "http" && port == "80") || (scheme == "https" && port == "443");
    const std::string shown_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return default_port ? shown_host : shown_host + ":" + port;
}

std::string Url::origin() const {
    return scheme + "://" + host_header();
}

Result<Url> parse_url(std::string_view text) {
    Url url;
    const auto scheme_end = text.find("://");
    if (scheme_end == std::string_view::npos) return bad_url(text, "it has no scheme");
    url.scheme = std::string(text.substr(0, scheme_end));
    for (auto& c : url.scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (url.scheme != "http" && url.scheme != "https") {
        return bad_url(text, "the scheme must be http or https");
    }
    std::string_view rest = text.substr(scheme_end + 3);
    const auto path_start = rest.find_first_of("/?#");
    std::string_view authority = rest.substr(0, path_start);
    std::string_view path = path_start == std::string_view::npos ? "" : rest.substr(path_start);
    if (authority.find('@') != std::string_view::npos) {
        return bad_url(text, "credentials in the URL are not supported (use api_key_env)");
    }
    std::string_view port;
    if (!authority.empty() && authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) return bad_url(text, "the IPv6 address has no closing ']'");
        url.host = std::string(authority.substr(1, close - 1));
        std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return bad_url(text, "unexpected text after the IPv6 address");
            port = after.substr(1);
        }
    } else {
        const auto colon = authority.rfind(':');
        url.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    }
    if (url.host.empty()) return bad_url(text, "it has no host");
    if (!port.empty() || authority.ends_with(":")) {
        if (!all_digits(port) || port.size() > 5 || std::stoi(std::string(port)) == 0 ||
            std::stoi(std::string(port)) > 65535) {
            return bad_url(text, "the port must be a number from 1 to 65535");
        }
        url.port = std::string(port);
    } else {
        url.port = url.is_tls() ? "443" : "80";
    }
    const auto fragment = path.find('#');
    if (fragment != std::string_view::npos) path = path.substr(0, fragment);
    url.target = path.empty() ? "/" : std::string(path);
    if (url.target.front() == '?') url.target = "/" + url.target;
    return url;
}

std::string join_url(std::string_view base, std::string_view path) {
    std::string joined(base);
    while (!joined.empty() && joined.back() == '/') joined.pop_back();
    if (!path.empty() && path.front() != '/') joined += '/';
    joined += path;
    return joined;
}

}  // namespace skillhost::http
