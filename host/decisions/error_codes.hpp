// The error codes decisions/ raises, each declared once with its kind: build an Error from one of
// these constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_DECISIONS_ERROR_CODES(X)                                            \
    X(kApprovalAlreadyResolved, "APPROVAL_ALREADY_RESOLVED", conflict)                \
    X(kApprovalExpired, "APPROVAL_EXPIRED", conflict)                                 \
    X(kApprovalNotClaimed, "APPROVAL_NOT_CLAIMED", conflict)                          \
    X(kApprovalNotFound, "APPROVAL_NOT_FOUND", not_found)                             \
    X(kDefinitionChangeAlreadyDecided, "DEFINITION_CHANGE_ALREADY_DECIDED", conflict) \
    X(kDefinitionChangeExpired, "DEFINITION_CHANGE_EXPIRED", conflict)                \
    X(kDefinitionChangeNotApproved, "DEFINITION_CHANGE_NOT_APPROVED", conflict)       \
    X(kDefinitionChangeNotFound, "DEFINITION_CHANGE_NOT_FOUND", not_found)            \
    X(kElicitationAlreadyAnswered, "ELICITATION_ALREADY_ANSWERED", conflict)          \
    X(kElicitationExpired, "ELICITATION_EXPIRED", conflict)                           \
    X(kElicitationNotAnswered, "ELICITATION_NOT_ANSWERED", conflict)                  \
    X(kElicitationNotFound, "ELICITATION_NOT_FOUND", not_found)                       \
    X(kElicitationQueueFull, "ELICITATION_QUEUE_FULL", too_many)                      \
    X(kInvalidElicitationAnswer, "INVALID_ELICITATION_ANSWER", invalid)               \
    X(kNotAllowedToAnswer, "NOT_ALLOWED_TO_ANSWER", forbidden)                        \
    X(kNotAllowedToPin, "NOT_ALLOWED_TO_PIN", forbidden)                              \
    X(kNotAllowedToResolve, "NOT_ALLOWED_TO_RESOLVE", forbidden)                      \
    X(kSelfApproval, "SELF_APPROVAL", forbidden)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_DECISIONS_ERROR_CODES, kDecisionsErrorCodes, "decisions")

namespace skillhost::decisions {

// The errors every kind of decision raises, each in the kind's own code (DecisionKindRules::codes).
struct DecisionErrorCodes {
    ErrorCode not_found;        // no decision of this kind with that id (or not the viewer's)
    ErrorCode not_allowed;      // the decider is neither the user it is for nor an owner
    ErrorCode already_decided;  // no longer pending (details say how it is now and who decided)
    ErrorCode expired;          // passed its expiry before anyone decided (it is marked expired)
    ErrorCode not_claimed;      // its outcome was to be recorded, but it is not claimed
};

inline constexpr DecisionErrorCodes kApprovalErrorCodes{errors::kApprovalNotFound, errors::kNotAllowedToResolve,
                                                        errors::kApprovalAlreadyResolved, errors::kApprovalExpired,
                                                        errors::kApprovalNotClaimed};
inline constexpr DecisionErrorCodes kQuestionErrorCodes{errors::kElicitationNotFound, errors::kNotAllowedToAnswer,
                                                        errors::kElicitationAlreadyAnswered,
                                                        errors::kElicitationExpired, errors::kElicitationNotAnswered};
inline constexpr DecisionErrorCodes kDefinitionChangeErrorCodes{
    errors::kDefinitionChangeNotFound, errors::kNotAllowedToPin, errors::kDefinitionChangeAlreadyDecided,
    errors::kDefinitionChangeExpired, errors::kDefinitionChangeNotApproved};

}  // namespace skillhost::decisions
