// The error codes mcp/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_MCP_ERROR_CODES(X) X(kApprovalRejected, "APPROVAL_REJECTED", internal)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_MCP_ERROR_CODES, kMcpErrorCodes, "mcp")
