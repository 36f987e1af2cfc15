// The error codes app/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_APP_ERROR_CODES(X)                   \
    X(kCatalogNotLive, "CATALOG_NOT_LIVE", internal)   \
    X(kHomeNotWritable, "HOME_NOT_WRITABLE", internal) \
    X(kRunStillWorking, "RUN_STILL_WORKING", conflict) \
    X(kSecretOfAnotherUser, "SECRET_OF_ANOTHER_USER", forbidden)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_APP_ERROR_CODES, kAppErrorCodes, "app")
