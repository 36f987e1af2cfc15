#include "server/api_request.hpp"
#include "server/error_codes.hpp"

#include "base/json_text.hpp"
#include "base/percent_encoding.hpp"

#include <charconv>

namespace skillhost::server {

namespace json = boost::json;

namespace {

const char* kind_of(const json::value& v) {
    switch (v.kind()) {
        case json::kind::null: return "null";
        case json::kind::bool_: return "a boolean";
        case json::kind::string: return "a string";
        case json::kind::array: return "an array";
        case json::kind::object: return "an object";
        default: return "a number";
    }
}

}  // namespace

bool parse_query(std::string_view text, std::map<std::string, std::string>& out) {
    std::size_t start = 0;
    while (start <= text.size() && !text.empty()) {
        const auto end = text.find('&', start);
        const std::string_view part =
            text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (!part.empty()) {
            const auto eq = part.find('=');
            std::string key;
            std::string value;
            if (!percent_decode(part.substr(0, eq), key)) return false;
            if (eq != std::string_view::npos && !percent_decode(part.substr(eq + 1), value)) return false;
            out[key] = value;
        }
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return true;
}

bool ApiRequest::wants_event_stream() const {
    const auto accept = raw[http::field::accept];
    return accept.find("text/event-stream") != boost::beast::string_view::npos;
}

json::object ApiRequest::json_body() const {
    const std::string& body = raw.body();
    if (body.find_first_not_of(" \t\r\n") == std::string::npos) return {};
    json::value value;
    std::string problem;
    if (!parse_json(body, value, problem)) {
        Error e{errors::kBodyNotJson,
                "the request body is not valid JSON: " + problem,
                {},
                {"send a JSON object with Content-Type: application/json"}};
        throw ApiFailure(std::move(e));
    }
    if (!value.is_object()) {
        throw ApiFailure(Error{errors::kBodyNotObject,
                               std::string("the request body must be a JSON object, not ") + kind_of(value)});
    }
    return std::move(value.as_object());
}

void ApiRequest::allow_query(std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, value] : query) {
        bool known = false;
        for (auto a : allowed) known = known || a == key;
        if (known) continue;
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        Error e{errors::kInvalidQuery,
                "unknown query parameter '" + key + "'" +
                    (list.empty() ? "; this endpoint takes none" : "; allowed: " + list),
                {},
                {}};
        e.details["parameter"] = key;
        throw ApiFailure(std::move(e));
    }
}

std::optional<std::string> ApiRequest::query_string(const std::string& name) const {
    auto it = query.find(name);
    if (it == query.end()) return std::nullopt;
    return it->second;
}

std::optional<std::int64_t> ApiRequest::query_int(const std::string& name, std::int64_t lo, std::int64_t hi) const {
    auto it = query.find(name);
    if (it == query.end()) return std::nullopt;
    std::int64_t v = 0;
    const auto& s = it->second;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || v < lo || v > hi) {
        Error e{errors::kInvalidQuery,
                "query parameter '" + name + "' must be a whole number from " + std::to_string(lo) + " to " +
                    std::to_string(hi) + ", not '" + s + "'",
                {},
                {}};
        e.details["parameter"] = name;
        throw ApiFailure(std::move(e));
    }
    return v;
}

bool ApiRequest::query_flag(const std::string& name) const {
    auto it = query.find(name);
    if (it == query.end()) return false;
    if (it->second == "true" || it->second == "1" || it->second.empty()) return true;
    if (it->second == "false" || it->second == "0") return false;
    Error e{errors::kInvalidQuery,
            "query parameter '" + name + "' must be true or false, not '" + it->second + "'",
            {},
            {}};
    e.details["parameter"] = name;
    throw ApiFailure(std::move(e));
}

void allow_fields(const json::object& body, std::initializer_list<std::string_view> allowed) {
    for (const auto& kv : body) {
        bool known = false;
        for (auto a : allowed) known = known || a == kv.key();
        if (known) continue;
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        throw bad_field(errors::kUnknownField, kv.key(),
                        "unknown field '" + std::string(kv.key()) + "'" + (list.empty() ? "" : "; allowed: " + list));
    }
}

std::optional<std::string> string_field(const json::object& body, std::string_view name, bool required) {
    const auto* v = body.if_contains(name);
    if (!v || v->is_null()) {
        if (required)
            throw bad_field(errors::kFieldMissing, name, "field '" + std::string(name) + "' is required (a string)");
        return std::nullopt;
    }
    if (!v->is_string()) {
        throw bad_field(errors::kFieldWrongType, name,
                        "field '" + std::string(name) + "' must be a string, not " + kind_of(*v));
    }
    return std::string(v->as_string());
}

std::optional<std::int64_t> int_field(const json::object& body, std::string_view name, std::int64_t lo,
                                      std::int64_t hi) {
    const auto* v = body.if_contains(name);
    if (!v || v->is_null()) return std::nullopt;
    std::int64_t n = 0;
    if (v->is_int64())
        n = v->as_int64();
    else if (v->is_uint64() && v->as_uint64() <= static_cast<std::uint64_t>(hi))
        n = static_cast<std::int64_t>(v->as_uint64());
    else {
        throw bad_field(errors::kFieldWrongType, name,
                        "field '" + std::string(name) + "' must be a whole number, not " + kind_of(*v));
    }
    if (n < lo || n > hi) {
        throw bad_field(
            errors::kFieldOutOfRange, name,
            "field '" + std::string(name) + "' must be from " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    return n;
}

}  // namespace skillhost::server
