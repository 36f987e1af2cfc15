// The error codes base/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_BASE_ERROR_CODES(X) X(kInvalidTime, "INVALID_TIME", invalid)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_BASE_ERROR_CODES, kBaseErrorCodes, "base")
