// The error codes decisions/ raises, each declared once with its kind: build an Error from one of
// these constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_DECISIONS_ERROR_CODES(X)                                   \
    X(kApprovalAlreadyResolved, "APPROVAL_ALREADY_RESOLVED", conflict)       \
    X(kApprovalExpired, "APPROVAL_EXPIRED", conflict)                        \
    X(kApprovalNotClaimed, "APPROVAL_NOT_CLAIMED", conflict)                 \
    X(kApprovalNotFound, "APPROVAL_NOT_FOUND", not_found)                    \
    X(kElicitationAlreadyAnswered, "ELICITATION_ALREADY_ANSWERED", conflict) \
    X(kElicitationExpired, "ELICITATION_EXPIRED", conflict)                  \
    X(kElicitationNotAnswered, "ELICITATION_NOT_ANSWERED", conflict)         \
    X(kElicitationNotFound, "ELICITATION_NOT_FOUND", not_found)              \
    X(kElicitationQueueFull, "ELICITATION_QUEUE_FULL", too_many)             \
    X(kInvalidElicitationAnswer, "INVALID_ELICITATION_ANSWER", invalid)      \
    X(kNotAllowedToAnswer, "NOT_ALLOWED_TO_ANSWER", forbidden)               \
    X(kNotAllowedToResolve, "NOT_ALLOWED_TO_RESOLVE", forbidden)             \
    X(kSelfApproval, "SELF_APPROVAL", forbidden)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_DECISIONS_ERROR_CODES, kDecisionsErrorCodes, "decisions")
