// The error codes reload/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_RELOAD_ERROR_CODES(X)                                         \
    X(kReloadFailedKeepingPrevious, "RELOAD_FAILED_KEEPING_PREVIOUS", internal) \
    X(kUnitOutsidePluginDirs, "UNIT_OUTSIDE_PLUGIN_DIRS", internal)             \
    X(kWatcherAlreadyStarted, "WATCHER_ALREADY_STARTED", internal)              \
    X(kWatcherStartFailed, "WATCHER_START_FAILED", internal)                    \
    X(kWatchFailed, "WATCH_FAILED", internal)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_RELOAD_ERROR_CODES, kReloadErrorCodes, "reload")
