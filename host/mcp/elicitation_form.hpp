// The form a skill may ask its user to fill in (MCP 2025-11-25 elicitation "requestedSchema"): a
// flat object of primitive fields, including the SEP-1330 enum forms (untitled `enum`, titled
// `oneOf` of {const, title}, legacy `enumNames`, and multi-select arrays whose `items` hold an
// `enum` or an `anyOf` of {const, title}), and the check of an answer against it. Bounded: at most
// kMaxFormFields fields and kMaxFormOptions options per field.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace skillhost::mcp {

inline constexpr std::size_t kMaxFormFields = 32;
inline constexpr std::size_t kMaxFormOptions = 100;

// Why `schema` is not a form a client can show (a sentence naming the field), or nullopt.
std::optional<std::string> form_schema_problem(const boost::json::object& schema);

// Why `content` is not an answer to the form `schema` (which passed form_schema_problem), or nullopt.
std::optional<std::string> form_answer_problem(const boost::json::object& schema, const boost::json::object& content);

}  // namespace skillhost::mcp
