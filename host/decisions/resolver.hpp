// Who is deciding (approving, rejecting, answering) or looking at a pending decision.
#pragma once

#include "auth/credential.hpp"
#include "auth/users.hpp"

#include <string>

namespace skillhost::decisions {

// The requesting user or any owner may decide; with require_approver, approving needs a credential
// with the approve scope, and never the (non-admin) token that requested the call.
struct Resolver {
    std::string user_id;
    auth::Role role = auth::Role::standard;
    auth::Credential credential{};  // default: the terminal user (all scopes)
    // The answer comes from the person a host prompt reached (MCP elicitation, shown by the client
    // to its user): the session's token asked the host, not the client, so it is not self-approval.
    bool answers_prompt = false;

    bool is_owner() const { return role == auth::Role::owner; }
};

}  // namespace skillhost::decisions
