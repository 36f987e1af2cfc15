// Who a skill call runs for, as policy sees it: identity, role, trust, the effective cognitive
// mode and the workspace root.
#pragma once

#include "base/error.hpp"
#include "manifest/skill_spec.hpp"
#include "auth/credential.hpp"
#include "auth/users.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace skillhost::auth {

struct UserContext {
    std::string user_id;
    Role role = Role::standard;
    manifest::TrustLevel trust = manifest::TrustLevel::suggest;
    CognitiveMode mode = CognitiveMode::agent;
    std::filesystem::path workspace;
    // How this request was authenticated; the terminal user (all scopes, no token) by default.
    Credential credential{};
};

UserContext make_user_context(const User& user, CognitiveMode mode);

// The context a request authenticated with `credential` acts in: without the admin scope an owner
// keeps only a standard user's powers (their own approvals, runs and settings, nobody else's).
UserContext with_credential(UserContext user, Credential credential);

// Looking a user up and applying their stored mode is policy's (policy/mode_store.hpp,
// policy/mode_cache.hpp): the modes live there.

}  // namespace skillhost::auth
