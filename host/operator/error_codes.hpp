// The error codes operator/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_OPERATOR_ERROR_CODES(X)                                   \
    X(kAnsweredCallFailed, "ANSWERED_CALL_FAILED", internal)                \
    X(kApprovalStillPending, "APPROVAL_STILL_PENDING", conflict)            \
    X(kApprovedCallFailed, "APPROVED_CALL_FAILED", internal)                \
    X(kCatalogUnavailable, "CATALOG_UNAVAILABLE", internal)                 \
    X(kCriticRejected, "CRITIC_REJECTED", internal)                         \
    X(kElicitationStillPending, "ELICITATION_STILL_PENDING", conflict)      \
    X(kGoalTooLong, "GOAL_TOO_LONG", too_large)                             \
    X(kGuidanceEmpty, "GUIDANCE_EMPTY", invalid)                            \
    X(kOperatorConfigInvalid, "OPERATOR_CONFIG_INVALID", invalid)           \
    X(kOperatorConfigUnreadable, "OPERATOR_CONFIG_UNREADABLE", unavailable) \
    X(kPlannerOutputInvalid, "PLANNER_OUTPUT_INVALID", internal)            \
    X(kRunCancelled, "RUN_CANCELLED", internal)                             \
    X(kRunNotAwaitingApproval, "RUN_NOT_AWAITING_APPROVAL", conflict)       \
    X(kRunNotAwaitingInput, "RUN_NOT_AWAITING_INPUT", conflict)             \
    X(kRunNotInterrupted, "RUN_NOT_INTERRUPTED", conflict)                  \
    X(kRunNotResumable, "RUN_NOT_RESUMABLE", conflict)                      \
    X(kRunNotWaitingForGuidance, "RUN_NOT_WAITING_FOR_GUIDANCE", conflict)  \
    X(kRunStuck, "RUN_STUCK", internal)                                     \
    X(kUserRejected, "USER_REJECTED", internal)                             \
    X(kUserUnresolvable, "USER_UNRESOLVABLE", internal)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_OPERATOR_ERROR_CODES, kOperatorErrorCodes, "operator")
