#include "app/secret_actions.hpp"

#include "app/error_codes.hpp"
#include "app/host_parts.hpp"
#include "manifest/foreign_server.hpp"
#include "policy/error_codes.hpp"
#include "app/declared_servers.hpp"

#include <algorithm>

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

void audit(const HostRuntime& host, std::string_view kind, const std::string& user, std::string_view name,
           const auth::UserContext& caller) {
    audit_secret_change(*parts_of(host).audit, kind, user, name, caller.user_id);
}

}  // namespace

void audit_secret_change(audit::AuditLog& audit, std::string_view kind, std::string_view user_id, std::string_view name,
                         std::string_view by) {
    (void)audit.append(kind, boost::json::object{{"user", user_id}, {"secret", name}, {"by", by}});
}

std::vector<NeededSecret> secrets_needed_by_servers(const std::vector<std::filesystem::path>& plugin_dirs,
                                                    const std::vector<SecretEntry>& set) {
    std::vector<NeededSecret> needed;
    for (const manifest::ForeignServer& server : declared_foreign_servers(plugin_dirs)) {
        for (const auto& secret : server.secrets) {
            const bool is_set = std::any_of(set.begin(), set.end(),
                                            [&](const SecretEntry& entry) { return entry.name == secret.name; });
            needed.push_back({server.name, secret.name,
                              secret.env.empty() ? "header " + secret.header : "env " + secret.env, is_set});
        }
    }
    return needed;
}

Status set_user_secret(HostRuntime& host, const auth::UserContext& caller, std::string_view user_id,
                       std::string_view name, std::string_view value) {
    auto user = owner_of(host, caller, user_id);
    if (!user) return user.error();
    if (auto set = parts_of(host).secrets->set(*user, name, value, caller.user_id); !set) return set.error();
    audit(host, "secret_set", *user, name, caller);
    return {};
}

Status delete_user_secret(HostRuntime& host, const auth::UserContext& caller, std::string_view user_id,
                          std::string_view name) {
    auto user = owner_of(host, caller, user_id);
    if (!user) return user.error();
    if (auto removed = parts_of(host).secrets->remove(*user, name); !removed) return removed.error();
    audit(host, "secret_deleted", *user, name, caller);
    return {};
}

Result<std::vector<SecretEntry>> list_user_secrets(HostRuntime& host, const auth::UserContext& caller,
                                                   std::string_view user_id) {
    auto user = owner_of(host, caller, user_id);
    if (!user) return user.error();
    return parts_of(host).secrets->list(*user);
}

}  // namespace skillhost::app
