// One API request as handlers see it: the Beast request, the path's parameters and query, the
// authenticated user, and strict readers for the JSON body that name the field that is wrong.
#pragma once

#include "auth/user_context.hpp"
#include "server/api_error.hpp"
#include "server/http_exchange.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::server {

struct ApiRequest {
    Request& raw;
    std::string path;                           // without the query
    std::map<std::string, std::string> query;   // decoded; a repeated key keeps the last value
    std::map<std::string, std::string> params;  // from {name} segments of the route
    const auth::UserContext* user = nullptr;    // null only on public routes

    const std::string& param(const std::string& name) const { return params.at(name); }
    // True when the client asked for text/event-stream in Accept.
    bool wants_event_stream() const;
    // The body as a JSON object: an empty body is {} ; BODY_NOT_JSON / BODY_NOT_OBJECT otherwise.
    boost::json::object json_body() const;
    // Query parameters: INVALID_QUERY (400) naming the parameter when it is not one of `allowed`
    // or has the wrong form.
    void allow_query(std::initializer_list<std::string_view> allowed) const;
    std::optional<std::string> query_string(const std::string& name) const;
    std::optional<std::int64_t> query_int(const std::string& name, std::int64_t lo, std::int64_t hi) const;
    bool query_flag(const std::string& name) const;  // true|false|1|0; absent: false
};

// Strict body fields: UNKNOWN_FIELD for a key not in `allowed`; FIELD_MISSING / FIELD_WRONG_TYPE.
void allow_fields(const boost::json::object& body, std::initializer_list<std::string_view> allowed);
std::optional<std::string> string_field(const boost::json::object& body, std::string_view name, bool required);
std::optional<std::int64_t> int_field(const boost::json::object& body, std::string_view name, std::int64_t lo,
                                      std::int64_t hi);

// Splits "a=1&b=x%20y" (percent- and plus-decoding). False when an escape is malformed.
bool parse_query(std::string_view text, std::map<std::string, std::string>& out);

}  // namespace skillhost::server
