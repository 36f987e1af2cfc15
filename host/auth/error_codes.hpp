// The error codes auth/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_AUTH_ERROR_CODES(X)                               \
    X(kInvalidScope, "INVALID_SCOPE", invalid)                      \
    X(kInvalidTokenId, "INVALID_TOKEN_ID", invalid)                 \
    X(kMissingScope, "MISSING_SCOPE", forbidden)                    \
    X(kSecretInvalid, "SECRET_INVALID", invalid)                    \
    X(kSecretKeyMismatch, "SECRET_KEY_MISMATCH", unavailable)       \
    X(kSecretKeyUnavailable, "SECRET_KEY_UNAVAILABLE", unavailable) \
    X(kSecretNotFound, "SECRET_NOT_FOUND", not_found)               \
    X(kTokenGenerationFailed, "TOKEN_GENERATION_FAILED", internal)  \
    X(kUsersInvalid, "USERS_INVALID", invalid)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_AUTH_ERROR_CODES, kAuthErrorCodes, "auth")
