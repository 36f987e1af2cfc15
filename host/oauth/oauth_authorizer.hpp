// The OAuth 2.1 client of one (MCP server, user), as the MCP authorization spec (2025-11-25, and
// the 2025-03-26 revision's servers) asks of a client: it answers an HTTP session's refusals
// (upstream::HttpAuthorizer). A 401 is answered with the refresh token when there is one, else the
// whole flow: the server's protected resource metadata and its authorization server's metadata
// (discovery.hpp), a client registration (client_registration.hpp), an authorization code with
// PKCE S256 obtained through the user agent, and the tokens for it (token_request.hpp), each
// request naming the server as its `resource` (RFC 8707). A 403 with error="insufficient_scope" is
// answered by authorizing again with the scope the server names added (step-up). A server whose
// metadata names another resource, an authorization server that does not offer S256, and a
// redirect whose state or issuer differs are refused, not authorized.
//
// The user agent is whoever can show the user the authorization page: `skillhost oauth login`
// opens it in the user's browser; a session without one fails with OAUTH_AUTHORIZATION_REQUIRED
// naming that command. With client_credentials set, no user is involved (a machine's own grant);
// with an identity provider, the user's ID token from it stands for them (identity_assertion.hpp).
//
// Threads: authorization() and answer() may be called from any thread; flows run one at a time,
// and a refusal of a credential another flow has already replaced is answered at once.
#pragma once

#include "base/error.hpp"
#include "oauth/bearer_challenge.hpp"
#include "oauth/client_registration.hpp"
#include "oauth/discovery.hpp"
#include "oauth/grant.hpp"
#include "oauth/identity_assertion.hpp"
#include "oauth/token_request.hpp"
#include "upstream/http_authorizer.hpp"

#include <functional>
#include <mutex>
#include <optional>
#include <string>

namespace skillhost::oauth {

// Shows the user `authorization_url` and returns the URL the authorization server sent them back
// to (the redirect URI with the code and state), by `deadline`; an Error when they could not be.
using UserAgent = std::function<Result<std::string>(const std::string& authorization_url, Clock::time_point deadline)>;

struct AuthorizerOptions {
    std::string server_url;                             // the MCP server's URL
    std::string label = "the MCP server";               // how messages name it
    ClientIdentity identity;                            // who skillhost is to the authorization server
    std::string scope;                                  // asked when neither the challenge nor the metadata names one
    bool client_credentials = false;                    // the client_credentials grant: no user, no redirect
    std::optional<IdentityProvider> identity_provider;  // enterprise-managed: the user's IdP vouches (SEP-990)
    ClientAssertionSigner signer;                       // for private_key_jwt
    UserAgent user_agent;                               // none: OAUTH_AUTHORIZATION_REQUIRED when a user is needed
    std::string login_hint;                             // the command that authorizes, for that error's message
    std::optional<Grant> grant;                         // what an earlier authorization left (kept by the owner)
    std::function<void(const Grant&)> on_grant;         // keeps a changed grant; called with no lock held
    // The grant as kept now (another process may have replaced it: a login); asked when a request
    // is refused, before any flow.
    std::function<std::optional<Grant>()> reload;
};

class OAuthAuthorizer final : public upstream::HttpAuthorizer {
public:
    explicit OAuthAuthorizer(AuthorizerOptions options);

    std::string authorization() override;
    Status answer(const upstream::HttpRefusal& refusal, Clock::time_point deadline) override;

    // The whole flow now, before any request is refused (a login): discovery from the well-known
    // URLs, registration, authorization, tokens.
    Status authorize(Clock::time_point deadline);
    std::optional<Grant> grant() const;

private:
    Status refresh(Clock::time_point deadline);
    Status step_up(const BearerChallenge& challenge, Clock::time_point deadline);
    Status authorize_with(const std::string& resource_metadata, const std::string& challenge_scope, bool step_up,
                          Clock::time_point deadline);
    Status discover(const std::string& resource_metadata, Clock::time_point deadline);
    Result<std::string> obtain_code(const ClientRegistration& client, const std::string& scope,
                                    const std::string& resource, const std::string& verifier,
                                    Clock::time_point deadline);
    Error authorization_required() const;
    std::string scope_for(const std::string& challenge_scope, bool step_up) const;
    std::string resource() const;
    void adopt(ClientRegistration client, Tokens tokens);

    const AuthorizerOptions options_;
    std::mutex flow_mutex_;  // one flow at a time
    mutable std::mutex mutex_;
    std::optional<Grant> grant_;
    // Discovered once per authorizer (the metadata is asked again after a failed flow).
    std::optional<ResourceMetadata> resource_metadata_;
    std::optional<ServerMetadata> server_metadata_;
};

}  // namespace skillhost::oauth
