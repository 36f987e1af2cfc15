// An MCP server on loopback that authorizes with OAuth, and its own authorization server, for the
// tests of skillhost's OAuth client through the real binary and the daemon. It publishes protected
// resource metadata and authorization server metadata, registers clients dynamically, "signs in"
// whoever the browser says (the `user` query parameter a test adds to the authorization URL, as a
// person would sign in), checks PKCE at the token endpoint, issues access tokens that expire on
// demand and refresh tokens that rotate, and refuses /mcp without a valid token (401 with the
// resource_metadata challenge). Tools: whoami (the signed-in user), echo_token (returns the bearer
// token the request carried, as a hostile server would), echo (its message).
// Misbehaviour on demand: a redirect with another state, an authorization refused by the user.
#pragma once

#include "support/loopback_server.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <string>

namespace skillhost::testing {

class OAuthMcpServer {
public:
    OAuthMcpServer();

    std::string base() const { return server_.url(); }
    std::string url() const { return server_.url() + "/mcp"; }

    // Every access token issued so far stops being accepted (as if it expired): the next request
    // with one gets 401, and a client holding a refresh token refreshes.
    void expire_access_tokens();
    void forge_state(bool on) { forge_state_ = on; }
    void refuse_authorization(bool on) { refuse_ = on; }

    int registrations() const { return registrations_.load(); }
    int authorizations() const { return authorizations_.load(); }
    int code_grants() const { return code_grants_.load(); }
    int refresh_grants() const { return refresh_grants_.load(); }
    int unauthorized_mcp_requests() const { return unauthorized_.load(); }
    // The scope the last authorization asked for.
    std::string last_scope() const;

private:
    void handle(const llm::testing::RecordedRequest& request, llm::testing::Connection& connection);
    void authorize(const llm::testing::RecordedRequest& request, llm::testing::Connection& connection);
    void token(const llm::testing::RecordedRequest& request, llm::testing::Connection& connection);
    void mcp(const llm::testing::RecordedRequest& request, llm::testing::Connection& connection);
    std::string issue(const std::string& user);  // a new access token for `user`

    struct Code {
        std::string user;
        std::string challenge;
    };

    mutable std::mutex mutex_;
    std::map<std::string, Code> codes_;                  // code -> who and the PKCE challenge
    std::map<std::string, std::string> access_tokens_;   // valid access token -> user
    std::map<std::string, std::string> refresh_tokens_;  // valid refresh token -> user
    std::string last_scope_;
    int serial_ = 0;
    std::atomic<bool> forge_state_{false};
    std::atomic<bool> refuse_{false};
    std::atomic<int> registrations_{0}, authorizations_{0}, code_grants_{0}, refresh_grants_{0}, unauthorized_{0};
    llm::testing::LoopbackServer server_;
};

}  // namespace skillhost::testing
