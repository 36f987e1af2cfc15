// The error codes oauth/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_OAUTH_ERROR_CODES(X)                                       \
    X(kOauthAuthorizationDenied, "OAUTH_AUTHORIZATION_DENIED", forbidden)    \
    X(kOauthAuthorizationRequired, "OAUTH_AUTHORIZATION_REQUIRED", conflict) \
    X(kOauthDiscoveryFailed, "OAUTH_DISCOVERY_FAILED", unavailable)          \
    X(kOauthFlowFailed, "OAUTH_FLOW_FAILED", internal)                       \
    X(kOauthInsufficientScope, "OAUTH_INSUFFICIENT_SCOPE", forbidden)        \
    X(kOauthRegistrationFailed, "OAUTH_REGISTRATION_FAILED", unavailable)    \
    X(kOauthResourceMismatch, "OAUTH_RESOURCE_MISMATCH", conflict)           \
    X(kOauthServerNotDeclared, "OAUTH_SERVER_NOT_DECLARED", not_found)       \
    X(kOauthTokenFailed, "OAUTH_TOKEN_FAILED", unavailable)                  \
    X(kOauthUnsafeServer, "OAUTH_UNSAFE_SERVER", conflict)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_OAUTH_ERROR_CODES, kOauthErrorCodes, "oauth")
