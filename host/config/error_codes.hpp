// The error codes config/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_CONFIG_ERROR_CODES(X)               \
    X(kConfigInvalid, "CONFIG_INVALID", invalid)      \
    X(kConfigNotFound, "CONFIG_NOT_FOUND", not_found) \
    X(kPluginDirNotFound, "PLUGIN_DIR_NOT_FOUND", not_found)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_CONFIG_ERROR_CODES, kConfigErrorCodes, "config")
