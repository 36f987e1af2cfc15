// The HTTP exchanges of an OAuth flow: a GET of a metadata document and a POST of a form or a JSON
// body, each answered by JSON. Bounded: a body over kMaxDocumentBytes fails, no redirect is followed
// (an authorization server's endpoints are named, not discovered by redirects), nothing is retried.
#pragma once

#include "base/error.hpp"
#include "oauth/form_encoding.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace skillhost::oauth {

using Clock = std::chrono::steady_clock;
using Headers = std::vector<std::pair<std::string, std::string>>;

inline constexpr std::size_t kMaxDocumentBytes = 256 * 1024;

struct JsonReply {
    int status = 0;
    boost::json::value body;  // null when the body is not JSON
    std::string text;         // the body as sent (bounded), for messages
    std::string location;     // a redirect's Location header
};

// The exchange failed (unreachable, timeout, too large): `code` is the error raised, naming what
// was asked for (`what`: "the protected resource metadata").
Result<JsonReply> get_json(const std::string& url, std::string_view what, Clock::time_point deadline,
                           const ErrorCode& code, const Headers& headers = {});
Result<JsonReply> post_form(const std::string& url, const FormFields& fields, const Headers& headers,
                            std::string_view what, Clock::time_point deadline, const ErrorCode& code);
Result<JsonReply> post_json(const std::string& url, const boost::json::value& body, std::string_view what,
                            Clock::time_point deadline, const ErrorCode& code);

// The text of a JSON body's string member ("" when absent or not a string).
std::string string_member(const boost::json::value& body, std::string_view name);
// A JSON body's array of strings (others skipped; empty when absent).
std::vector<std::string> strings_member(const boost::json::value& body, std::string_view name);
// "error: error_description" of an OAuth error body, or the status and the text.
std::string describe_refusal(const JsonReply& reply);

}  // namespace skillhost::oauth
