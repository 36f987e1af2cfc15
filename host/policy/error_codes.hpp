// The error codes policy/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_POLICY_ERROR_CODES(X)                \
    X(kApprovalRequired, "APPROVAL_REQUIRED", pending) \
    X(kDeniedByRule, "DENIED_BY_RULE", forbidden)      \
    X(kModeForbids, "MODE_FORBIDS", forbidden)         \
    X(kPolicyDenied, "POLICY_DENIED", forbidden)       \
    X(kPolicyInvalid, "POLICY_INVALID", invalid)       \
    X(kTrustTooLow, "TRUST_TOO_LOW", forbidden)        \
    X(kUserNotFound, "USER_NOT_FOUND", not_found)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_POLICY_ERROR_CODES, kPolicyErrorCodes, "policy")
