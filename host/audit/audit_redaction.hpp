// Keeping secrets and bulk out of the audit log (and approval previews).
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace skillhost::audit {

// Keys whose values are never written anywhere: names containing token, secret, password,
// passwd, api_key/apikey/api-key, authorization, cookie or credential (case-insensitive).
bool is_secret_key(std::string_view key);

// A copy with every secret key's value (at any depth) replaced by "[redacted]", and every value
// larger than `max_value_chars` replaced by "<prefix>… [truncated: N chars, sha256 HEX]".
boost::json::value redact_and_truncate(const boost::json::value& value, std::size_t max_value_chars);

// SHA-256 of the compact JSON of the redacted (not truncated) arguments: equal calls give equal
// digests, and a digest cannot be used to confirm a guessed secret.
std::string argument_digest(const boost::json::value& args);

// What an audit record writes for a call's arguments: the JSON text of
// redact_and_truncate(args, max_value_chars) and argument_digest(args).
struct AuditedArguments {
    std::string text;
    std::string sha256;
};
// Serialises the arguments once in the usual case (no secret key, nothing to truncate), where the
// redacted text, the digested text and the arguments' own JSON are the same text.
AuditedArguments audited_arguments(const boost::json::value& args, std::size_t max_value_chars);

}  // namespace skillhost::audit
