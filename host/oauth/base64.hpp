// Base64 as OAuth uses it: padded standard (RFC 4648 §4) for HTTP Basic credentials, unpadded
// base64url (§5) for PKCE and JWTs.
#pragma once

#include <string>
#include <string_view>

namespace skillhost::oauth {

std::string base64(std::string_view bytes);
std::string base64url(std::string_view bytes);

}  // namespace skillhost::oauth
