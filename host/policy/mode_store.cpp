#include "policy/mode_store.hpp"

#include "db/sqlite_schema.hpp"

#include <sqlite3.h>

#include <chrono>

namespace skillhost::policy {

Result<std::unique_ptr<ModeStore>> ModeStore::open(const std::filesystem::path& database_file) {
    auto connection = db::open_migrated_sqlite(database_file);
    if (!connection) return connection.error();
    return std::unique_ptr<ModeStore>(new ModeStore(std::move(*connection)));
}

Result<std::optional<CognitiveMode>> ModeStore::stored_mode(std::string_view user_id) const {
    std::lock_guard lock(mutex_);
    db::SqliteStatement select(connection_, "SELECT mode FROM user_modes WHERE user_id = ?");
    if (!select.prepared()) return connection_.error("reading the cognitive mode");
    select.bind(1, user_id);
    const int rc = select.step();
    if (rc == SQLITE_DONE) return std::optional<CognitiveMode>{};
    if (rc != SQLITE_ROW) return connection_.error("reading the cognitive mode");
    const std::string text = select.text(0);
    auto mode = parse_cognitive_mode(text);
    if (!mode) {
        Error error{"DATABASE_ERROR",
                    "the stored cognitive mode `" + text + "` for user " + std::string(user_id) +
                        " is not dual, agent or emulation; run `skillhost mode set MODE --user " +
                        std::string(user_id) + "` to replace it",
                    {},
                    {}};
        error.details["file"] = connection_.file().string();
        return error;
    }
    return std::optional<CognitiveMode>(*mode);
}

Result<CognitiveMode> ModeStore::effective_mode(const User& user) const {
    auto stored = stored_mode(user.id);
    if (!stored) return stored.error();
    return stored->value_or(user.default_mode);
}

Status ModeStore::set_mode(std::string_view user_id, CognitiveMode mode) {
    std::lock_guard lock(mutex_);
    db::SqliteStatement upsert(
        connection_,
        "INSERT INTO user_modes (user_id, mode, updated_at_ms) VALUES (?, ?, ?) "
        "ON CONFLICT(user_id) DO UPDATE SET mode = excluded.mode, updated_at_ms = excluded.updated_at_ms");
    if (!upsert.prepared()) return connection_.error("saving the cognitive mode");
    const auto now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
    upsert.bind(1, user_id).bind(2, to_string(mode)).bind(3, static_cast<std::int64_t>(now.count()));
    if (upsert.step() != SQLITE_DONE) return connection_.error("saving the cognitive mode");
    return {};
}

Status ModeStore::clear_mode(std::string_view user_id) {
    std::lock_guard lock(mutex_);
    db::SqliteStatement remove(connection_, "DELETE FROM user_modes WHERE user_id = ?");
    if (!remove.prepared()) return connection_.error("clearing the cognitive mode");
    remove.bind(1, user_id);
    if (remove.step() != SQLITE_DONE) return connection_.error("clearing the cognitive mode");
    return {};
}

}  // namespace skillhost::policy
