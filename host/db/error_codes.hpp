// The error codes db/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_DB_ERROR_CODES(X)                              \
    X(kDatabaseError, "DATABASE_ERROR", internal)                \
    X(kDatabaseErrorUnavailable, "DATABASE_ERROR", unavailable)  \
    X(kDatabaseUnavailable, "DATABASE_UNAVAILABLE", unavailable) \
    X(kInvalidChannel, "INVALID_CHANNEL", invalid)               \
    X(kNotificationTooLarge, "NOTIFICATION_TOO_LARGE", internal) \
    X(kSchemaTooNew, "SCHEMA_TOO_NEW", unavailable)              \
    X(kSetAsideFailed, "SET_ASIDE_FAILED", internal)             \
    X(kStoreDamaged, "STORE_DAMAGED", unavailable)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_DB_ERROR_CODES, kDbErrorCodes, "db")
