// JSON text helpers shared by the CLI, logs and renderers.
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace skillhost {

// Shortest text that reads back as the same double ("0.291", "43.98"), unlike Boost.JSON's
// "2.91E-1". Non-finite values become null.
std::string format_json_number(double d);

// Compact JSON with numbers as format_json_number writes them.
std::string compact_json(const boost::json::value& value);

// Indented JSON (2 spaces), keys in their stored order. Boost.JSON only prints compactly.
std::string pretty_json(const boost::json::value& value, int indent = 2);

// Parses JSON text; on failure returns an Error-friendly message naming the byte offset.
// Returns true on success and stores the value in `out`, else stores a message in `problem`.
bool parse_json(std::string_view text, boost::json::value& out, std::string& problem);

}  // namespace skillhost
