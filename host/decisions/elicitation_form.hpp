// The form a skill may ask its user to fill in (MCP 2025-11-25 elicitation "requestedSchema"): a
// flat object of primitive fields, including the SEP-1330 enum forms (untitled `enum`, titled
// `oneOf` of {const, title}, legacy `enumNames`, and multi-select arrays whose `items` hold an
// `enum` or an `anyOf` of {const, title}), and the check of an answer against it. Bounded: at most
// kMaxFormFields fields and kMaxFormOptions options per field. One implementation for both ways a
// user is asked: MCP's elicitation/create and the pending-elicitation queue (CLI, HTTP API).
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string_view>
#include <string>

namespace skillhost::decisions {

inline constexpr std::size_t kMaxFormFields = 32;
inline constexpr std::size_t kMaxFormOptions = 100;
inline constexpr std::size_t kMaxElicitationRequestBytes = 64 * 1024;

// A skill's "skillhost.elicit/1" request, checked: what to ask and the form to fill in.
struct ElicitationRequest {
    std::string message;
    boost::json::object requested_schema;

    // {"message": ..., "requestedSchema": {...}}: MCP's elicitation/create params.
    boost::json::object to_json() const;
};

// The request a skill sent, or ELICITATION_INVALID naming what is wrong with it (not JSON, unknown
// member, empty message, a form a client cannot show, more than kMaxElicitationRequestBytes).
Result<ElicitationRequest> parse_elicitation_request(std::string_view request_json);

// Why `schema` is not a form a client can show (a sentence naming the field), or nullopt.
std::optional<std::string> form_schema_problem(const boost::json::object& schema);

// Why an answer does not fit its form: the field at fault (as the form names it) and a sentence
// naming it, so a front end can point at the field.
struct FormAnswerProblem {
    std::string field;
    std::string message;
};

// Why `content` is not an answer to the form `schema` (which passed form_schema_problem), or nullopt.
std::optional<FormAnswerProblem> form_answer_problem(const boost::json::object& schema,
                                                     const boost::json::object& content);

}  // namespace skillhost::decisions
