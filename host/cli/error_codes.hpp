// The error codes cli/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_CLI_ERROR_CODES(X)                       \
    X(kDemoAlreadySeeded, "DEMO_ALREADY_SEEDED", conflict) \
    X(kDirectoryNotEmpty, "DIRECTORY_NOT_EMPTY", conflict) \
    X(kInvalidArgsJson, "INVALID_ARGS_JSON", invalid)      \
    X(kInvalidLanguage, "INVALID_LANGUAGE", invalid)       \
    X(kInvalidListen, "INVALID_LISTEN", invalid)           \
    X(kInvalidMode, "INVALID_MODE", invalid)               \
    X(kInvalidPluginName, "INVALID_PLUGIN_NAME", invalid)  \
    X(kInvalidStatus, "INVALID_STATUS", invalid)           \
    X(kNoPackageDeclared, "NO_PACKAGE_DECLARED", invalid)  \
    X(kTempDirFailed, "TEMP_DIR_FAILED", internal)         \
    X(kTokenNotFound, "TOKEN_NOT_FOUND", not_found)        \
    X(kWriteFailed, "WRITE_FAILED", internal)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_CLI_ERROR_CODES, kCliErrorCodes, "cli")
