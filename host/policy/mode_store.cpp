#include "policy/mode_store.hpp"
#include "db/error_codes.hpp"

#include <chrono>

namespace skillhost::policy {

Result<std::unique_ptr<ModeStore>> ModeStore::open(const std::filesystem::path& database_file) {
    return open(db::StorageLocation::sqlite(database_file));
}

Result<std::unique_ptr<ModeStore>> ModeStore::open(const db::StorageLocation& location) {
    auto connection = db::BackendConnection::open(location);
    if (!connection) return connection.error();
    return std::unique_ptr<ModeStore>(new ModeStore(std::move(*connection)));
}

Result<std::optional<auth::CognitiveMode>> ModeStore::stored_mode(std::string_view user_id) const {
    auto rows = connection_->run("reading the cognitive mode", "SELECT mode FROM user_modes WHERE user_id = ?",
                                 {std::string(user_id)});
    if (!rows) return rows.error();
    if (rows->size() == 0) return std::optional<auth::CognitiveMode>{};
    const std::string text = rows->text(0, 0);
    auto mode = auth::parse_cognitive_mode(text);
    if (!mode) {
        Error error{errors::kDatabaseError,
                    "the stored cognitive mode `" + text + "` for user " + std::string(user_id) +
                        " is not dual, agent or emulation; run `skillhost mode set MODE --user " +
                        std::string(user_id) + "` to replace it",
                    {},
                    {}};
        error.details[connection_->backend() == db::StorageBackend::sqlite ? "file" : "database"] =
            connection_->where();
        return error;
    }
    return std::optional<auth::CognitiveMode>(*mode);
}

Result<auth::CognitiveMode> ModeStore::effective_mode(const auth::User& user) const {
    auto stored = stored_mode(user.id);
    if (!stored) return stored.error();
    return stored->value_or(user.default_mode);
}

Status ModeStore::set_mode(std::string_view user_id, auth::CognitiveMode mode) {
    const auto now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
    auto saved = connection_->run(
        "saving the cognitive mode",
        "INSERT INTO user_modes (user_id, mode, updated_at_ms) VALUES (?, ?, ?) "
        "ON CONFLICT(user_id) DO UPDATE SET mode = excluded.mode, updated_at_ms = excluded.updated_at_ms",
        {std::string(user_id), std::string(to_string(mode)), static_cast<std::int64_t>(now.count())});
    if (!saved) return saved.error();
    return {};
}

Status ModeStore::clear_mode(std::string_view user_id) {
    auto removed = connection_->run("clearing the cognitive mode", "DELETE FROM user_modes WHERE user_id = ?",
                                    {std::string(user_id)});
    if (!removed) return removed.error();
    return {};
}

}  // namespace skillhost::policy
