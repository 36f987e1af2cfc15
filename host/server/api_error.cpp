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
#include <set>

namespace skillhost::server {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

http::status status_for(const Error& error) {
    static const std::set<std::string, std::less<>> forbidden{
        "MODE_FORBIDS", "DENIED_BY_RULE",   "TRUST_TOO_LOW", "POLICY_DENIED", "NOT_ALLOWED_TO_RESOLVE",
        "FORBIDDEN",    "PATH_NOT_ALLOWED", "MISSING_SCOPE", "SELF_APPROVAL", "NOT_ALLOWED_TO_ANSWER"};
    static const std::set<std::string, std::less<>> conflict{"APPROVAL_ALREADY_RESOLVED",
                                                             "APPROVAL_EXPIRED",
                                                             "APPROVAL_STILL_PENDING",
                                                             "APPROVAL_NOT_CLAIMED",
                                                             "RUN_NOT_AWAITING_APPROVAL",
                                                             "RUN_NOT_WAITING_FOR_GUIDANCE",
                                                             "RUN_ALREADY_FINISHED",
                                                             "RUN_BUSY",
                                                             "RUN_ALREADY_RESUMED",
                                                             "RUN_NOT_INTERRUPTED",
                                                             "ELICITATION_ALREADY_ANSWERED",
                                                             "ELICITATION_EXPIRED",
                                                             "ELICITATION_NOT_ANSWERED",
                                                             "RUN_NOT_AWAITING_INPUT",
                                                             "ELICITATION_STILL_PENDING",
                                                             "RUN_STILL_WORKING",
                                                             "RUN_NOT_RESUMABLE",
                                                             "RUN_PLUGIN_VERSION_MISSING"};
    const std::string_view code = error.code;
    if (code == "APPROVAL_REQUIRED" || code == "ELICITATION_REQUIRED") return http::status::accepted;
    if (ends_with(code, "_NOT_FOUND")) return http::status::not_found;
    if (forbidden.count(code)) return http::status::forbidden;
    if (conflict.count(code)) return http::status::conflict;
    if (code.rfind("INVALID_", 0) == 0 || code == "GUIDANCE_EMPTY" || code.rfind("BODY_", 0) == 0 ||
        code.rfind("FIELD_", 0) == 0 || code == "UNKNOWN_FIELD" || code == "INVALID_ARGS") {
        return http::status::bad_request;
    }
    if (code == "TOO_MANY_RUNS" || code == "ELICITATION_QUEUE_FULL") return http::status::too_many_requests;
    if (code == "GOAL_TOO_LONG") return http::status::payload_too_large;
    if (code == "SHUTTING_DOWN" || code == "DATABASE_UNAVAILABLE") return http::status::service_unavailable;
    // Storage the operator can fix (a full disk, a read-only file system, permissions), and an audit
    // log that cannot be written: unavailable until then, with the cause in the answer.
    if (code == "AUDIT_WRITE_FAILED" || code == "PLUGIN_NOT_LOADED") return http::status::service_unavailable;
    if (code == "DATABASE_ERROR" && error.details.contains("cause")) return http::status::service_unavailable;
    return http::status::internal_server_error;
}

ApiFailure bad_field(std::string_view code, std::string_view field, std::string message) {
    Error e{std::string(code), std::move(message), {}, {}};
    e.details["field"] = std::string(field);
    return ApiFailure(http::status::bad_request, std::move(e));
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

Response error_response(http::status status, const Error& error, unsigned version) {
    Response r = json_response(status, boost::json::object{{"error", error.to_json()}}, version);
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
