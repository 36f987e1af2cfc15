// Users' secrets for foreign MCP servers (a declaration's `secrets:`), kept in the host's database
// (`user_secrets`) sealed under the host's secret key (auth/secret_box.hpp): set, listed by name
// and removed by the CLI (`skillhost secrets`) and the HTTP API (/v1/secrets), read by the plugin
// layer when it starts a user's instance of a server. A value is never returned to anyone: not by
// the list, not by the API; only the server it is injected into sees it.
#pragma once

#include "auth/secret_box.hpp"
#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"
#include "plugin/foreign_oauth.hpp"
#include "plugin/foreign_secrets.hpp"

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::app {

struct SecretEntry {
    std::string name;
    std::int64_t updated_at_ms = 0;
    std::string updated_by;
};

// What a secret's value may be: 8..8192 bytes (shorter ones could not be redacted from what a server
// sends back without redacting ordinary text), printable, one line (it goes into an environment
// variable or a header). SECRET_INVALID saying which rule it breaks.
Status check_secret_value(std::string_view value);
// A secret's name: ^[A-Za-z_][A-Za-z0-9_]*$, at most 128 characters. SECRET_INVALID.
Status check_secret_name(std::string_view name);

// Users' OAuth grants (plugin/foreign_oauth.hpp) are kept in the same table, sealed the same way,
// under the name "oauth:SERVER", which no secret can have: the list leaves them out.
class UserSecretStore final : public plugin::SecretSource, public plugin::GrantStore {
public:
    static Result<std::shared_ptr<UserSecretStore>> open(const db::StorageLocation& location,
                                                         std::filesystem::path key_file);
    UserSecretStore(std::unique_ptr<db::BackendConnection> connection, std::filesystem::path key_file);

    // Sets (or replaces) `user_id`'s secret; the key file is made on the first one.
    Status set(std::string_view user_id, std::string_view name, std::string_view value, std::string_view by);
    // SECRET_NOT_FOUND when the user has no such secret.
    Status remove(std::string_view user_id, std::string_view name);
    Result<std::vector<SecretEntry>> list(std::string_view user_id) const;

    Result<std::optional<std::string>> secret(std::string_view user_id, std::string_view name) const override;

    Result<std::optional<oauth::Grant>> grant(std::string_view user_id, std::string_view server) const override;
    Status keep(std::string_view user_id, std::string_view server, const oauth::Grant& grant) override;
    Status forget(std::string_view user_id, std::string_view server) override;

private:
    Result<const auth::SecretBox*> box(bool create) const;
    Status store(std::string_view user_id, std::string_view name, std::string_view value, std::string_view by);

    std::unique_ptr<db::BackendConnection> connection_;  // thread-safe
    std::filesystem::path key_file_;
    mutable std::mutex mutex_;  // guards box_
    mutable std::optional<auth::SecretBox> box_;
};

}  // namespace skillhost::app
