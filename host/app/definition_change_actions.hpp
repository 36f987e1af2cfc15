// Approving or rejecting a changed definition of a foreign MCP server's tool: one use case for every
// front end. Approving claims the decision, makes its new definition the pin and records it pinned,
// so the tool is callable as the server now lists it (in every process on the database: each one
// asks the pins again when the tool's listed hash is not the one it accepted). Rejecting keeps it
// refused.
#pragma once

#include "app/host_runtime.hpp"
#include "auth/user_context.hpp"
#include "base/error.hpp"
#include "decisions/definition_change_record.hpp"

#include <string_view>

namespace skillhost::app {

// Errors: those of the queue (DEFINITION_CHANGE_NOT_FOUND, NOT_ALLOWED_TO_PIN, MISSING_SCOPE,
// DEFINITION_CHANGE_EXPIRED, DEFINITION_CHANGE_ALREADY_DECIDED), and UPSTREAM_DEFINITION_CHANGED when
// another change of the same tool was pinned first (the decision is then marked failed).
Result<decisions::DefinitionChangeRecord> approve_definition_change(HostRuntime& host, std::string_view id,
                                                                    const auth::UserContext& decider);

Result<decisions::DefinitionChangeRecord> reject_definition_change(HostRuntime& host, std::string_view id,
                                                                   const auth::UserContext& decider,
                                                                   std::string_view reason);

}  // namespace skillhost::app
