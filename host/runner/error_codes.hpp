// The error codes runner/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_RUNNER_ERROR_CODES(X)                         \
    X(kHostRequestTooLarge, "HOST_REQUEST_TOO_LARGE", internal) \
    X(kRunnerOutOfMemory, "RUNNER_OUT_OF_MEMORY", internal)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_RUNNER_ERROR_CODES, kRunnerErrorCodes, "runner")
