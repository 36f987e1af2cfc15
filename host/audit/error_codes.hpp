// The error codes audit/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_AUDIT_ERROR_CODES(X)                 \
    X(kAuditReadFailed, "AUDIT_READ_FAILED", internal) \
    X(kAuditWriteFailed, "AUDIT_WRITE_FAILED", unavailable)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_AUDIT_ERROR_CODES, kAuditErrorCodes, "audit")
