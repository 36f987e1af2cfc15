#include "oauth/http_json.hpp"

#include "net/http_client.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>

namespace skillhost::oauth {
namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

Result<JsonReply> exchange(http::HttpRequest request, std::string_view what, Clock::time_point deadline,
                           const ErrorCode& code) {
    http::HttpClientOptions options;
    const auto left = std::max(milliseconds(1), std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
    options.connect_timeout = std::min(milliseconds(5000), left);
    options.read_timeout = left;
    options.total_timeout = left;
    options.max_retries = 0;
    options.max_response_bytes = kMaxDocumentBytes;
    request.headers.emplace_back("Accept", "application/json");
    auto response = http::send_http_request(request, options);
    if (!response) {
        Error error{code, "cannot get " + std::string(what) + " from " + request.url + ": " + response.error().message};
        error.details["url"] = request.url;
        error.details["cause"] = response.error().code.str();
        return error;
    }
    JsonReply reply;
    reply.status = response->status;
    reply.text = response->body.substr(0, 2000);
    reply.location = response->header("location").substr(0, 8192);
    std::error_code ec;
    json::value body = json::parse(response->body, ec);
    if (!ec) reply.body = std::move(body);
    return reply;
}

}  // namespace

Result<JsonReply> get_json(const std::string& url, std::string_view what, Clock::time_point deadline,
                           const ErrorCode& code, const Headers& headers) {
    return exchange(http::HttpRequest{"GET", url, headers, ""}, what, deadline, code);
}

Result<JsonReply> post_form(const std::string& url, const FormFields& fields, const Headers& headers,
                            std::string_view what, Clock::time_point deadline, const ErrorCode& code) {
    http::HttpRequest request{"POST", url, headers, form_encode(fields)};
    request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    return exchange(std::move(request), what, deadline, code);
}

Result<JsonReply> post_json(const std::string& url, const json::value& body, std::string_view what,
                            Clock::time_point deadline, const ErrorCode& code) {
    http::HttpRequest request{"POST", url, {{"Content-Type", "application/json"}}, json::serialize(body)};
    return exchange(std::move(request), what, deadline, code);
}

std::string string_member(const json::value& body, std::string_view name) {
    const json::object* object = body.if_object();
    const json::value* member = object != nullptr ? object->if_contains(name) : nullptr;
    return member != nullptr && member->is_string() ? std::string(member->get_string()) : std::string();
}

std::vector<std::string> strings_member(const json::value& body, std::string_view name) {
    std::vector<std::string> out;
    const json::object* object = body.if_object();
    const json::value* member = object != nullptr ? object->if_contains(name) : nullptr;
    if (member == nullptr || !member->is_array()) return out;
    for (const json::value& item : member->get_array())
        if (item.is_string() && out.size() < 256) out.emplace_back(item.get_string());
    return out;
}

std::string describe_refusal(const JsonReply& reply) {
    const std::string error = string_member(reply.body, "error");
    std::string text = "HTTP " + std::to_string(reply.status);
    if (!error.empty()) {
        text += ", " + error;
        const std::string description = string_member(reply.body, "error_description");
        if (!description.empty()) text += ": " + description.substr(0, 500);
    } else if (!reply.text.empty()) {
        text += ": " + reply.text.substr(0, 300);
    }
    return text;
}

}  // namespace skillhost::oauth
