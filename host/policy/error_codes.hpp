// The error codes policy/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_POLICY_ERROR_CODES(X)                                      \
    X(kApprovalAlreadyResolved, "APPROVAL_ALREADY_RESOLVED", conflict)       \
    X(kApprovalExpired, "APPROVAL_EXPIRED", conflict)                        \
    X(kApprovalNotClaimed, "APPROVAL_NOT_CLAIMED", conflict)                 \
    X(kApprovalNotFound, "APPROVAL_NOT_FOUND", not_found)                    \
    X(kApprovalRequired, "APPROVAL_REQUIRED", pending)                       \
    X(kDeniedByRule, "DENIED_BY_RULE", forbidden)                            \
    X(kElicitationAlreadyAnswered, "ELICITATION_ALREADY_ANSWERED", conflict) \
    X(kElicitationExpired, "ELICITATION_EXPIRED", conflict)                  \
    X(kElicitationNotAnswered, "ELICITATION_NOT_ANSWERED", conflict)         \
    X(kElicitationNotFound, "ELICITATION_NOT_FOUND", not_found)              \
    X(kElicitationQueueFull, "ELICITATION_QUEUE_FULL", too_many)             \
    X(kInvalidElicitationAnswer, "INVALID_ELICITATION_ANSWER", invalid)      \
    X(kModeForbids, "MODE_FORBIDS", forbidden)                               \
    X(kNotAllowedToAnswer, "NOT_ALLOWED_TO_ANSWER", forbidden)               \
    X(kNotAllowedToResolve, "NOT_ALLOWED_TO_RESOLVE", forbidden)             \
    X(kPolicyDenied, "POLICY_DENIED", forbidden)                             \
    X(kPolicyInvalid, "POLICY_INVALID", invalid)                             \
    X(kSelfApproval, "SELF_APPROVAL", forbidden)                             \
    X(kTrustTooLow, "TRUST_TOO_LOW", forbidden)                              \
    X(kUserNotFound, "USER_NOT_FOUND", not_found)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_POLICY_ERROR_CODES, kPolicyErrorCodes, "policy")
