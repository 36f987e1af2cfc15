// The redirect of a native app's authorization (RFC 8252 §7.3): a listener on 127.0.0.1 that the
// user's browser is sent back to with the code. `skillhost oauth login` opens one, prints the
// authorization URL for the user to open, and waits for one request to /callback; anything else
// that reaches the port (a favicon, a probe) gets 404 and the wait goes on. Bounded: a request
// line and headers of at most 8 KiB, one connection at a time, the caller's deadline.
#pragma once

#include "base/error.hpp"
#include "oauth/oauth_authorizer.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace skillhost::oauth {

class LoopbackRedirect {
public:
    // Binds 127.0.0.1:`port` (0: a free one). OAUTH_FLOW_FAILED when it cannot.
    static Result<LoopbackRedirect> open(std::uint16_t port);
    LoopbackRedirect(LoopbackRedirect&& other) noexcept;
    LoopbackRedirect& operator=(LoopbackRedirect&&) = delete;
    ~LoopbackRedirect();

    std::string redirect_uri() const;  // http://127.0.0.1:PORT/callback
    // The user agent of a login: `show` is given the authorization URL (to print), then the
    // redirect is awaited. OAUTH_AUTHORIZATION_REQUIRED when it does not come by the deadline.
    UserAgent user_agent(std::function<void(const std::string& url)> show);

private:
    explicit LoopbackRedirect(int fd, std::uint16_t port) : fd_(fd), port_(port) {}
    Result<std::string> await(Clock::time_point deadline);

    int fd_ = -1;
    std::uint16_t port_ = 0;
};

}  // namespace skillhost::oauth
