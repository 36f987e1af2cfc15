// What authorizes an HTTP MCP session's requests beyond the headers its declaration names: an
// OAuth client (oauth::OAuthAuthorizer) gives the Authorization header of each request and, when
// the server refuses one (401, or 403 asking for more scope), obtains a credential that answers the
// refusal. A refused request was not processed (the server checks the credential first), so the
// channel sends it again once the authorizer says it has a new credential.
//
// Threads: both functions may be called from any thread the channel's calls run on, and
// concurrently; an implementation serialises its flows itself.
#pragma once

#include "base/error.hpp"
#include "upstream/transport.hpp"

#include <string>
#include <string_view>

namespace skillhost::upstream {

struct HttpRefusal {
    int status = 0;                // 401 or 403
    std::string www_authenticate;  // the header as the server sent it ("" when absent)
    std::string request_url;       // the URL refused
    std::string authorization;     // the Authorization the refused request carried ("" for none)
};

class HttpAuthorizer {
public:
    virtual ~HttpAuthorizer() = default;
    // The Authorization header's value for the next request ("" for none yet).
    virtual std::string authorization() = 0;
    // Obtains a credential that answers the refusal, by `deadline`; the request is then sent again.
    // An Error (the refusal cannot be answered: no way to authorize, the flow failed, the same
    // refusal again) is what the call fails with.
    virtual Status answer(const HttpRefusal& refusal, Clock::time_point deadline) = 0;
};

}  // namespace skillhost::upstream
