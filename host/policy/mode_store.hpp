// Each user's chosen cognitive mode, persisted in skillhost.db; it overrides users.yaml's
// default_mode until cleared.
#pragma once

#include "base/error.hpp"
#include "db/sqlite_connection.hpp"
#include "policy/users.hpp"

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

namespace skillhost::policy {

class ModeStore {
public:
    static Result<std::unique_ptr<ModeStore>> open(const std::filesystem::path& database_file);

    // The mode set with set_mode, or nullopt when the user never chose one.
    Result<std::optional<CognitiveMode>> stored_mode(std::string_view user_id) const;
    // The stored mode, else the user's default_mode.
    Result<CognitiveMode> effective_mode(const User& user) const;
    Status set_mode(std::string_view user_id, CognitiveMode mode);
    // Forget the stored choice so users.yaml's default applies again.
    Status clear_mode(std::string_view user_id);

private:
    explicit ModeStore(db::SqliteConnection connection) : connection_(std::move(connection)) {}
    mutable std::mutex mutex_;
    db::SqliteConnection connection_;
};

}  // namespace skillhost::policy
