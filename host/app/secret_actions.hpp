// A user's secrets for foreign MCP servers as the HTTP API reaches them: a user sets, lists and
// deletes their own; an owner (with the admin scope) may do so for another user. Values go in and
// never come out; setting and deleting are audited (secret_set, secret_deleted: user, secret, by).
#pragma once

#include "app/host_runtime.hpp"
#include "app/user_secret_store.hpp"
#include "audit/audit_log.hpp"
#include "auth/user_context.hpp"
#include "base/error.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::app {

// `user_id` empty: the caller's own. SECRET_OF_ANOTHER_USER (403) for a non-owner naming another
// user, USER_NOT_FOUND for a user users.yaml does not have, and the store's errors (SECRET_INVALID,
// SECRET_NOT_FOUND, SECRET_KEY_UNAVAILABLE).
Status set_user_secret(HostRuntime& host, const auth::UserContext& caller, std::string_view user_id,
                       std::string_view name, std::string_view value);
Status delete_user_secret(HostRuntime& host, const auth::UserContext& caller, std::string_view user_id,
                          std::string_view name);
// The audit record of a change: kind secret_set or secret_deleted, whose, which, by whom.
void audit_secret_change(audit::AuditLog& audit, std::string_view kind, std::string_view user_id, std::string_view name,
                         std::string_view by);

// A secret a server declared in the plugin directories asks for, and whether the user has set it.
struct NeededSecret {
    std::string server, secret;
    std::string target;  // "env NAME" or "header NAME"
    bool set = false;
};

// What the declarations in `plugin_dirs` need, against the user's `set` secrets. The files are
// read, never started; one that does not parse is left to `plugin check`.
std::vector<NeededSecret> secrets_needed_by_servers(const std::vector<std::filesystem::path>& plugin_dirs,
                                                    const std::vector<SecretEntry>& set);

Result<std::vector<SecretEntry>> list_user_secrets(HostRuntime& host, const auth::UserContext& caller,
                                                   std::string_view user_id);

}  // namespace skillhost::app
