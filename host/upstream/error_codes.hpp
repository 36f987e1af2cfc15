// The error codes upstream/ raises, each declared once with its kind: build an Error from one of
// these constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_UPSTREAM_ERROR_CODES(X)                                            \
    X(kUpstreamBusy, "UPSTREAM_BUSY", too_many)                                      \
    X(kUpstreamCancelled, "UPSTREAM_CANCELLED", internal)                            \
    X(kUpstreamClosed, "UPSTREAM_CLOSED", unavailable)                               \
    X(kUpstreamDefinitionChanged, "UPSTREAM_DEFINITION_CHANGED", conflict)           \
    X(kUpstreamError, "UPSTREAM_ERROR", plugin)                                      \
    X(kUpstreamMessageTooLarge, "UPSTREAM_MESSAGE_TOO_LARGE", too_large)             \
    X(kUpstreamPackageInstallFailed, "UPSTREAM_PACKAGE_INSTALL_FAILED", unavailable) \
    X(kUpstreamPackageIntegrity, "UPSTREAM_PACKAGE_INTEGRITY", conflict)             \
    X(kUpstreamPackageModified, "UPSTREAM_PACKAGE_MODIFIED", conflict)               \
    X(kUpstreamPackageNotInstalled, "UPSTREAM_PACKAGE_NOT_INSTALLED", unavailable)   \
    X(kUpstreamProtocolError, "UPSTREAM_PROTOCOL_ERROR", internal)                   \
    X(kUpstreamSecretMissing, "UPSTREAM_SECRET_MISSING", conflict)                   \
    X(kUpstreamTimeout, "UPSTREAM_TIMEOUT", timeout)                                 \
    X(kUpstreamToolError, "UPSTREAM_TOOL_ERROR", plugin)                             \
    X(kUpstreamUnsupported, "UPSTREAM_UNSUPPORTED", unsupported)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_UPSTREAM_ERROR_CODES, kUpstreamErrorCodes, "upstream")
