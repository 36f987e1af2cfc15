// The API's error contract: every failure is `{"error": {code, message, details, suggestions}}`
// with the HTTP status its kind implies. Handlers throw ApiFailure; the dispatcher answers it.
#pragma once

#include "base/error.hpp"
#include "server/http_exchange.hpp"

#include <boost/json/value.hpp>

#include <stdexcept>
#include <string>

namespace skillhost::server {

// The HTTP status of each error kind: the one table every API answer's status comes from.
http::status status_for(ErrorKind kind);
inline http::status status_for(const Error& error) {
    return status_for(error.kind());
}

struct ApiFailure : std::runtime_error {
    // Answered with the status the error's kind implies (status_for).
    explicit ApiFailure(Error e) : std::runtime_error(e.message), status(status_for(e)), error(std::move(e)) {}
    http::status status;
    Error error;
};

// A 400 naming the field that is wrong: details.field = `field`.
ApiFailure bad_field(const ErrorCode& code, std::string_view field, std::string message);

Response json_response(http::status status, const boost::json::value& body, unsigned version = 11);
Response text_response(http::status status, std::string body, std::string_view content_type, unsigned version = 11);
// The error as the API answers it, with the status its kind implies.
Response error_response(const Error& error, unsigned version = 11);

// "req-" + 12 hex digits: ties a 500 answer to its log line.
std::string new_correlation_id();

}  // namespace skillhost::server
