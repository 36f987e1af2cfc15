// The error codes manifest/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_MANIFEST_ERROR_CODES(X)                   \
    X(kManifestInvalid, "MANIFEST_INVALID", invalid)        \
    X(kManifestUnreadable, "MANIFEST_UNREADABLE", internal) \
    X(kPatternInvalid, "PATTERN_INVALID", invalid)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_MANIFEST_ERROR_CODES, kManifestErrorCodes, "manifest")
