// The API's error contract: every failure is `{"error": {code, message, details, suggestions}}`
// with the HTTP status its code implies. Handlers throw ApiFailure; the dispatcher answers it.
#pragma once

#include "base/error.hpp"
#include "server/http_exchange.hpp"

#include <boost/json/value.hpp>

#include <stdexcept>
#include <string>

namespace skillhost::server {

// The status an error code implies: *_NOT_FOUND 404; invalid input 400; policy refusals 403;
// state conflicts 409; APPROVAL_REQUIRED 202; everything else 500.
http::status status_for(const Error& error);

struct ApiFailure : std::runtime_error {
    ApiFailure(http::status s, Error e) : std::runtime_error(e.message), status(s), error(std::move(e)) {}
    // The status the error's code implies (status_for).
    explicit ApiFailure(Error e) : std::runtime_error(e.message), status(status_for(e)), error(std::move(e)) {}
    http::status status;
    Error error;
};

// A 400 naming the field that is wrong: details.field = `field`.
ApiFailure bad_field(std::string_view code, std::string_view field, std::string message);

Response json_response(http::status status, const boost::json::value& body, unsigned version = 11);
Response text_response(http::status status, std::string body, std::string_view content_type, unsigned version = 11);
Response error_response(http::status status, const Error& error, unsigned version = 11);

// "req-" + 12 hex digits: ties a 500 answer to its log line.
std::string new_correlation_id();

}  // namespace skillhost::server
