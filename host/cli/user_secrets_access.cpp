#include "cli/user_secrets_access.hpp"

#include "app/secret_actions.hpp"
#include "app/storage_schema.hpp"
#include "auth/users.hpp"
#include "policy/error_codes.hpp"

namespace skillhost::cli {

void OpenedSecrets::audit(std::string_view kind, std::string_view name) const {
    if (auto log = app::open_audit_log(config)) app::audit_secret_change(**log, kind, user_id, name, "cli");
}

// The store and whose secrets are meant: --user, else the configured default user. No plugin is
// loaded (nor any MCP server started) for this.
Result<OpenedSecrets> open_secrets(CliContext& ctx, const std::string& wanted) {
    auto cfg = ctx.load_config();
    if (!cfg) return cfg.error();
    auto users = auth::load_users(cfg->etc_dir / "users.yaml", cfg->default_workspace);
    if (!users) return users.error();
    std::string id = wanted;
    if (id.empty()) id = users->find(cfg->default_user) ? cfg->default_user : users->first_owner().id;
    if (users->find(id) == nullptr) {
        Error error{errors::kUserNotFound,
                    "no user `" + id + "` in " +
                        (users->file().empty() ? std::string("the built-in user list") : users->file().string()) +
                        "; known users: " + users->ids_text() + ". Pass one of them with --user"};
        error.details["user"] = id;
        return error;
    }
    auto store = app::UserSecretStore::open(app::storage_location(cfg.value()), cfg->secret_key_file);
    if (!store) return store.error();
    return OpenedSecrets{std::move(store.value()), id, std::move(cfg.value())};
}

}  // namespace skillhost::cli
