#include "auth/user_context.hpp"

namespace skillhost::auth {

UserContext make_user_context(const User& user, CognitiveMode mode) {
    return UserContext{user.id, user.role, user.trust, mode, user.workspace, {}};
}

UserContext with_credential(UserContext user, Credential credential) {
    if (user.role == Role::owner && !credential.may(Scope::admin)) user.role = Role::standard;
    user.credential = std::move(credential);
    return user;
}

}  // namespace skillhost::auth
