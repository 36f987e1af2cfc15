// The error codes exec/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_EXEC_ERROR_CODES(X)                                   \
    X(kElicitationRequired, "ELICITATION_REQUIRED", pending)            \
    X(kExecutorUnavailable, "EXECUTOR_UNAVAILABLE", internal)           \
    X(kIdempotencyKeyTooLong, "IDEMPOTENCY_KEY_TOO_LONG", internal)     \
    X(kInvalidArgs, "INVALID_ARGS", invalid)                            \
    X(kInvalidCompletionRequest, "INVALID_COMPLETION_REQUEST", invalid) \
    X(kInvalidPromptArguments, "INVALID_PROMPT_ARGUMENTS", invalid)     \
    X(kInvalidUri, "INVALID_URI", invalid)                              \
    X(kInvalidUserId, "INVALID_USER_ID", invalid)                       \
    X(kModeNotAllowed, "MODE_NOT_ALLOWED", forbidden)                   \
    X(kPathNotAllowed, "PATH_NOT_ALLOWED", forbidden)                   \
    X(kPluginErrorUnspecified, "PLUGIN_ERROR_UNSPECIFIED", internal)    \
    X(kPluginInvalidResult, "PLUGIN_INVALID_RESULT", internal)          \
    X(kPluginNotLoaded, "PLUGIN_NOT_LOADED", unavailable)               \
    X(kPluginNoResult, "PLUGIN_NO_RESULT", internal)                    \
    X(kPromptNotFound, "PROMPT_NOT_FOUND", not_found)                   \
    X(kResourceNotFound, "RESOURCE_NOT_FOUND", not_found)               \
    X(kTimeout, "TIMEOUT", timeout)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_EXEC_ERROR_CODES, kExecErrorCodes, "exec")
