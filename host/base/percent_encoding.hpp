// Percent-encoding (RFC 3986 §2.1) as URL queries and form bodies use it.
#pragma once

#include <string>
#include <string_view>

namespace skillhost {

// Everything but the unreserved characters (RFC 3986 §2.3) as %XX.
std::string percent_encode(std::string_view text);
// %XX and '+' (a space, as application/x-www-form-urlencoded writes it) decoded into `out`; false
// on a malformed escape (a '%' without two hex digits after it).
bool percent_decode(std::string_view text, std::string& out);

}  // namespace skillhost
