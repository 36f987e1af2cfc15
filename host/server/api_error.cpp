#include "server/api_error.hpp"

#include "base/json_text.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>

namespace skillhost::server {

http::status status_for(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::pending: return http::status::accepted;
        case ErrorKind::invalid: return http::status::bad_request;
        case ErrorKind::unauthenticated: return http::status::unauthorized;
        case ErrorKind::forbidden: return http::status::forbidden;
        case ErrorKind::not_found: return http::status::not_found;
        case ErrorKind::unsupported: return http::status::method_not_allowed;
        case ErrorKind::not_acceptable: return http::status::not_acceptable;
        case ErrorKind::conflict: return http::status::conflict;
        case ErrorKind::gone: return http::status::gone;
        case ErrorKind::too_large: return http::status::payload_too_large;
        case ErrorKind::mismatch: return http::status::unprocessable_entity;
        case ErrorKind::too_many: return http::status::too_many_requests;
        case ErrorKind::headers_too_large: return http::status::request_header_fields_too_large;
        case ErrorKind::internal: return http::status::internal_server_error;
        // A request that fails on a plugin's own error: the plugin is the server's upstream.
        case ErrorKind::plugin: return http::status::bad_gateway;
        case ErrorKind::unavailable: return http::status::service_unavailable;
        case ErrorKind::timeout: return http::status::gateway_timeout;
    }
    return http::status::internal_server_error;
}

ApiFailure bad_field(const ErrorCode& code, std::string_view field, std::string message) {
    Error e{code, std::move(message)};
    e.details["field"] = std::string(field);
    return ApiFailure(std::move(e));
}

Response json_response(http::status status, const boost::json::value& body, unsigned version) {
    return text_response(status, boost::json::serialize(body), "application/json", version);
}

Response text_response(http::status status, std::string body, std::string_view content_type, unsigned version) {
    Response r{status, version};
    r.set(http::field::content_type, content_type);
    r.set(http::field::server, "skillhost");
    r.body() = std::move(body);
    r.prepare_payload();
    return r;
}

Response error_response(const Error& error, unsigned version) {
    Response r = json_response(status_for(error), boost::json::object{{"error", error.to_json()}}, version);
    // A refusal that says when to come back says it the HTTP way too (whole seconds, at least 1).
    if (const auto* after = error.details.if_contains("retry_after_ms"); after && after->is_int64()) {
        const std::int64_t seconds = std::max<std::int64_t>(1, (after->as_int64() + 999) / 1000);
        r.set(http::field::retry_after, std::to_string(seconds));
    }
    return r;
}

std::string new_correlation_id() {
    static std::atomic<std::uint64_t> counter{0};
    static const std::uint64_t seed =
        std::random_device{}() ^
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    const std::uint64_t n = (seed + counter.fetch_add(1) * 0x9E3779B97F4A7C15ull) & 0xFFFFFFFFFFFFull;
    std::array<char, 20> buf{};
    std::snprintf(buf.data(), buf.size(), "req-%012llx", static_cast<unsigned long long>(n));
    return buf.data();
}

}  // namespace skillhost::server
