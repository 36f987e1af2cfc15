// The Bearer challenge of a WWW-Authenticate header (RFC 6750 §3, RFC 9728 §5.1): what a protected
// MCP server says when it refuses a request, read without regular expressions in one pass over at
// most kMaxHeaderBytes. Other schemes in the same header (Basic, DPoP) are skipped.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::oauth {

struct BearerChallenge {
    std::string error;              // "invalid_token", "insufficient_scope", ... ("" when absent)
    std::string error_description;  // as the server wrote it
    std::string scope;              // space-separated scopes the request needs ("" when absent)
    std::string resource_metadata;  // the URL of the protected resource metadata ("" when absent)
};

inline constexpr std::size_t kMaxHeaderBytes = 8192;
inline constexpr std::size_t kMaxParameterBytes = 2048;

// The Bearer challenge in `header`, or nullopt when it has none (or is over kMaxHeaderBytes).
// A parameter value over kMaxParameterBytes is left out.
std::optional<BearerChallenge> parse_bearer_challenge(std::string_view header);

}  // namespace skillhost::oauth
