// One JSON-RPC 2.0 message a server sent, sorted by what it is (a request of the server's, a
// notification, an answer to one of the client's calls, or noise), and the answer the client
// writes back to a server's request. Shared by the transports, which differ only in framing.
#pragma once

#include "base/error.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace skillhost::upstream {

struct IncomingMessage {
    enum class Kind {
        noise,         // not a JSON-RPC 2.0 message
        request,       // `id`, `method`, `params`
        notification,  // `method`, `params`
        answer,        // `answer_id`, `answer` (the result, or the server's error as UPSTREAM_ERROR)
        stray,         // an answer without a usable id
    };
    Kind kind = Kind::noise;
    const boost::json::value* id = nullptr;  // points into the message read
    std::string_view method;
    const boost::json::value* params = nullptr;  // never null: an absent `params` is a null value
    std::int64_t answer_id = 0;
    Result<boost::json::value> answer{boost::json::value()};
};

// Sorts `message` (which must outlive the result). `label` names the server in errors.
IncomingMessage read_message(const boost::json::value& message, const std::string& label);

// The JSON text answering the server's request `id` with `result` (an Error becomes a JSON-RPC
// error: UPSTREAM_ERROR as "method not found", anything else as an internal error).
std::string answer_text(const boost::json::value& id, Result<boost::json::value> result);

// A line or event as a log may show it: at most 120 bytes, control characters and non-ASCII as \xNN.
std::string printable(std::string_view text);

}  // namespace skillhost::upstream
