// The error codes llm/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_LLM_ERROR_CODES(X)                            \
    X(kLlmApiKeyMissing, "LLM_API_KEY_MISSING", internal)       \
    X(kLlmBadRequest, "LLM_BAD_REQUEST", internal)              \
    X(kLlmBadResponse, "LLM_BAD_RESPONSE", internal)            \
    X(kLlmCancelled, "LLM_CANCELLED", internal)                 \
    X(kLlmHttpError, "LLM_HTTP_ERROR", internal)                \
    X(kLlmModelNotFound, "LLM_MODEL_NOT_FOUND", not_found)      \
    X(kLlmNoModel, "LLM_NO_MODEL", internal)                    \
    X(kLlmRateLimited, "LLM_RATE_LIMITED", too_many)            \
    X(kLlmResponseTooLarge, "LLM_RESPONSE_TOO_LARGE", internal) \
    X(kLlmScriptExhausted, "LLM_SCRIPT_EXHAUSTED", internal)    \
    X(kLlmScriptInvalid, "LLM_SCRIPT_INVALID", internal)        \
    X(kLlmScriptNotFound, "LLM_SCRIPT_NOT_FOUND", not_found)    \
    X(kLlmTimeout, "LLM_TIMEOUT", timeout)                      \
    X(kLlmUnavailable, "LLM_UNAVAILABLE", internal)             \
    X(kLlmUnreachable, "LLM_UNREACHABLE", unavailable)          \
    X(kModelsConfigInvalid, "MODELS_CONFIG_INVALID", invalid)   \
    X(kModelsConfigUnreadable, "MODELS_CONFIG_UNREADABLE", unavailable)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_LLM_ERROR_CODES, kLlmErrorCodes, "llm")
