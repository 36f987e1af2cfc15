#include "policy/user_context.hpp"
#include "policy/error_codes.hpp"

#include "policy/mode_cache.hpp"

#include <boost/json/array.hpp>

namespace skillhost::policy {

UserContext make_user_context(const User& user, CognitiveMode mode) {
    return UserContext{user.id, user.role, user.trust, mode, user.workspace, {}};
}

UserContext with_credential(UserContext user, Credential credential) {
    if (user.role == Role::owner && !credential.may(Scope::admin)) user.role = Role::standard;
    user.credential = std::move(credential);
    return user;
}

namespace {

template <typename Modes>
Result<UserContext> resolve_with(const UserDirectory& users, const Modes& modes, std::string_view user_id) {
    const User* user = users.find(user_id);
    if (user == nullptr) {
        Error error{errors::kUserNotFound,
                    "no user `" + std::string(user_id) + "` in " +
                        (users.file().empty() ? std::string("the built-in user list") : users.file().string()) +
                        "; known users: " + users.ids_text() +
                        ". Pass one of them with --user or add the user to users.yaml",
                    {},
                    {}};
        error.details["user"] = std::string(user_id);
        boost::json::array known;
        for (const auto& u : users.users()) known.emplace_back(u.id);
        error.details["known_users"] = std::move(known);
        return error;
    }
    auto mode = modes.effective_mode(*user);
    if (!mode) return mode.error();
    return make_user_context(*user, *mode);
}

}  // namespace

Result<UserContext> resolve_user_context(const UserDirectory& users, const ModeStore& modes, std::string_view user_id) {
    return resolve_with(users, modes, user_id);
}

Result<UserContext> resolve_user_context(const UserDirectory& users, const ModeCache& modes, std::string_view user_id) {
    return resolve_with(users, modes, user_id);
}

}  // namespace skillhost::policy
