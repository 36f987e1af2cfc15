#include "app/secret_actions.hpp"

#include "app/error_codes.hpp"
#include "app/host_parts.hpp"
#include "policy/error_codes.hpp"

namespace skillhost::app {
namespace {

// Whose secrets the caller means, if they may touch them.
Result<std::string> owner_of(const HostRuntime& host, const auth::UserContext& caller, std::string_view user_id) {
    const std::string wanted = user_id.empty() ? caller.user_id : std::string(user_id);
    if (wanted != caller.user_id && caller.role != auth::Role::owner) {
        Error error{errors::kSecretOfAnotherUser,
                    "only owners (with the admin scope) may manage another user's "
                    "secrets; leave out the user to manage your own"};
        error.details["user"] = wanted;
        return error;
    }
    if (parts_of(host).users->find(wanted) == nullptr) {
        Error error{errors::kUserNotFound,
                    "no user `" + wanted + "`; known users: " + parts_of(host).users->ids_text()};
        error.details["user"] = wanted;
        return error;
    }
    return wanted;
}

}  // namespace

Status set_user_secret(HostRuntime& host, const auth::UserContext& caller, std::string_view user_id,
                       std::string_view name, std::string_view value) {
    auto user = owner_of(host, caller, user_id);
    if (!user) return user.error();
    return parts_of(host).secrets->set(*user, name, value, caller.user_id);
}

Status delete_user_secret(HostRuntime& host, const auth::UserContext& caller, std::string_view user_id,
                          std::string_view name) {
    auto user = owner_of(host, caller, user_id);
    if (!user) return user.error();
    return parts_of(host).secrets->remove(*user, name);
}

Result<std::vector<SecretEntry>> list_user_secrets(HostRuntime& host, const auth::UserContext& caller,
                                                   std::string_view user_id) {
    auto user = owner_of(host, caller, user_id);
    if (!user) return user.error();
    return parts_of(host).secrets->list(*user);
}

}  // namespace skillhost::app
