// The error codes store/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_STORE_ERROR_CODES(X)                                  \
    X(kEventTooLarge, "EVENT_TOO_LARGE", internal)                      \
    X(kGuidanceNotFound, "GUIDANCE_NOT_FOUND", not_found)               \
    X(kIdempotencyKeysFull, "IDEMPOTENCY_KEYS_FULL", too_many)          \
    X(kInvalidCursor, "INVALID_CURSOR", invalid)                        \
    X(kRunAlreadyResumed, "RUN_ALREADY_RESUMED", conflict)              \
    X(kRunInterrupted, "RUN_INTERRUPTED", internal)                     \
    X(kRunLeaseHeld, "RUN_LEASE_HELD", internal)                        \
    X(kRunLeaseLost, "RUN_LEASE_LOST", internal)                        \
    X(kRunNotFound, "RUN_NOT_FOUND", not_found)                         \
    X(kRunPluginVersionMissing, "RUN_PLUGIN_VERSION_MISSING", conflict) \
    X(kRunRecordInvalid, "RUN_RECORD_INVALID", internal)                \
    X(kStepAlreadyClaimed, "STEP_ALREADY_CLAIMED", internal)            \
    X(kStorageConflict, "STORAGE_CONFLICT", conflict)                   \
    X(kStorageInvalid, "STORAGE_INVALID", invalid)                      \
    X(kStorageQuotaExceeded, "STORAGE_QUOTA_EXCEEDED", too_large)       \
    X(kStorageTooLarge, "STORAGE_TOO_LARGE", too_large)                 \
    X(kStorageUnavailable, "STORAGE_UNAVAILABLE", unavailable)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_STORE_ERROR_CODES, kStoreErrorCodes, "store")
