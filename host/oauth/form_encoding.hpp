// application/x-www-form-urlencoded, both ways: the bodies of token and registration requests, the
// query of an authorization URL, and the query of the redirect that carries the code back.
#pragma once

#include "base/percent_encoding.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skillhost::oauth {

using FormFields = std::vector<std::pair<std::string, std::string>>;

std::string form_encode(const FormFields& fields);
// The fields of a query or form body ("a=1&b=x%20y"); '+' reads as a space. Malformed escapes are
// kept as written.
FormFields form_decode(std::string_view text);
// The value of `name` in `fields` ("" when absent).
std::string form_value(const FormFields& fields, std::string_view name);
// The query of a URL (after '?', before '#'), decoded.
FormFields query_of(std::string_view url);

}  // namespace skillhost::oauth
