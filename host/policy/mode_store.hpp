// Each user's chosen cognitive mode, persisted in skillhost.db or PostgreSQL (where every instance
// sees one choice); it overrides users.yaml's default_mode until cleared. Every call reads the
// table: a cache, if any, belongs in front of this store.
#pragma once

#include "base/error.hpp"
#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"
#include "auth/user_context.hpp"
#include "auth/users.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>

namespace skillhost::policy {

class ModeStore {
public:
    static Result<std::unique_ptr<ModeStore>> open(const std::filesystem::path& database_file);
    // The modes of whichever backend `location` names.
    static Result<std::unique_ptr<ModeStore>> open(const db::StorageLocation& location);

    // The mode set with set_mode, or nullopt when the user never chose one.
    Result<std::optional<auth::CognitiveMode>> stored_mode(std::string_view user_id) const;
    // The stored mode, else the user's default_mode.
    Result<auth::CognitiveMode> effective_mode(const auth::User& user) const;
    Status set_mode(std::string_view user_id, auth::CognitiveMode mode);
    // Forget the stored choice so users.yaml's default applies again.
    Status clear_mode(std::string_view user_id);

private:
    explicit ModeStore(std::unique_ptr<db::BackendConnection> connection) : connection_(std::move(connection)) {}
    std::unique_ptr<db::BackendConnection> connection_;  // thread-safe
};

// Looks the user up and applies their stored mode. USER_NOT_FOUND names the known users.
Result<auth::UserContext> resolve_user_context(const auth::UserDirectory& users, const ModeStore& modes,
                                               std::string_view user_id);

}  // namespace skillhost::policy
