// The error codes net/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_NET_ERROR_CODES(X)                              \
    X(kHttpBadUrl, "HTTP_BAD_URL", invalid)                       \
    X(kHttpCancelled, "HTTP_CANCELLED", internal)                 \
    X(kHttpProtocolError, "HTTP_PROTOCOL_ERROR", internal)        \
    X(kHttpResponseTooLarge, "HTTP_RESPONSE_TOO_LARGE", internal) \
    X(kHttpTimeout, "HTTP_TIMEOUT", timeout)                      \
    X(kHttpTlsError, "HTTP_TLS_ERROR", internal)                  \
    X(kHttpUnreachable, "HTTP_UNREACHABLE", unavailable)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_NET_ERROR_CODES, kNetErrorCodes, "net")
