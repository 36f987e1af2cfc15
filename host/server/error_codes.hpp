// The error codes server/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_SERVER_ERROR_CODES(X)                                    \
    X(kAuthInvalid, "AUTH_INVALID", unauthenticated)                       \
    X(kAuthMalformed, "AUTH_MALFORMED", unauthenticated)                   \
    X(kAuthMissing, "AUTH_MISSING", unauthenticated)                       \
    X(kBindFailed, "BIND_FAILED", unavailable)                             \
    X(kBodyNotJson, "BODY_NOT_JSON", invalid)                              \
    X(kBodyNotObject, "BODY_NOT_OBJECT", invalid)                          \
    X(kBodyTooLarge, "BODY_TOO_LARGE", too_large)                          \
    X(kFieldEmpty, "FIELD_EMPTY", invalid)                                 \
    X(kFieldInvalid, "FIELD_INVALID", invalid)                             \
    X(kFieldMissing, "FIELD_MISSING", invalid)                             \
    X(kFieldOutOfRange, "FIELD_OUT_OF_RANGE", invalid)                     \
    X(kFieldWrongType, "FIELD_WRONG_TYPE", invalid)                        \
    X(kForbidden, "FORBIDDEN", forbidden)                                  \
    X(kHeadersTooLarge, "HEADERS_TOO_LARGE", headers_too_large)            \
    X(kHostNotAllowed, "HOST_NOT_ALLOWED", forbidden)                      \
    X(kIdempotencyAnswerNotKept, "IDEMPOTENCY_ANSWER_NOT_KEPT", gone)      \
    X(kIdempotencyKeyInvalid, "IDEMPOTENCY_KEY_INVALID", invalid)          \
    X(kIdempotencyKeyInUse, "IDEMPOTENCY_KEY_IN_USE", conflict)            \
    X(kIdempotencyKeyReused, "IDEMPOTENCY_KEY_REUSED", mismatch)           \
    X(kIdempotencyOutcomeUnknown, "IDEMPOTENCY_OUTCOME_UNKNOWN", conflict) \
    X(kInternal, "INTERNAL", internal)                                     \
    X(kInvalidLastEventId, "INVALID_LAST_EVENT_ID", invalid)               \
    X(kInvalidQuery, "INVALID_QUERY", invalid)                             \
    X(kMalformedRequest, "MALFORMED_REQUEST", invalid)                     \
    X(kMcpBadEventId, "MCP_BAD_EVENT_ID", invalid)                         \
    X(kMcpEventsGone, "MCP_EVENTS_GONE", gone)                             \
    X(kMcpInitializeTooLarge, "MCP_INITIALIZE_TOO_LARGE", internal)        \
    X(kMcpSessionCorrupt, "MCP_SESSION_CORRUPT", internal)                 \
    X(kMcpSessionNotFound, "MCP_SESSION_NOT_FOUND", not_found)             \
    X(kMcpSessionRequired, "MCP_SESSION_REQUIRED", invalid)                \
    X(kMethodNotAllowed, "METHOD_NOT_ALLOWED", unsupported)                \
    X(kNotAcceptable, "NOT_ACCEPTABLE", not_acceptable)                    \
    X(kNotFound, "NOT_FOUND", not_found)                                   \
    X(kOriginNotAllowed, "ORIGIN_NOT_ALLOWED", forbidden)                  \
    X(kRemoteBindNotAllowed, "REMOTE_BIND_NOT_ALLOWED", forbidden)         \
    X(kRunAlreadyFinished, "RUN_ALREADY_FINISHED", conflict)               \
    X(kRunBusy, "RUN_BUSY", conflict)                                      \
    X(kShuttingDown, "SHUTTING_DOWN", unavailable)                         \
    X(kTokenFileUnwritable, "TOKEN_FILE_UNWRITABLE", internal)             \
    X(kTooManyConnections, "TOO_MANY_CONNECTIONS", unavailable)            \
    X(kTooManyRuns, "TOO_MANY_RUNS", too_many)                             \
    X(kTooManySessions, "TOO_MANY_SESSIONS", too_many)                     \
    X(kTooManyStreams, "TOO_MANY_STREAMS", too_many)                       \
    X(kTooManyStreamsOnServer, "TOO_MANY_STREAMS", unavailable)            \
    X(kUnknownField, "UNKNOWN_FIELD", invalid)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_SERVER_ERROR_CODES, kServerErrorCodes, "server")
