// Each user's stored cognitive mode kept in memory, so a skill call does not read the database.
// It sits in front of any ModeStore (SQLite or PostgreSQL) and has the store's API.
//
// A mode change must apply to the very next call, also when another process made it (`skillhost
// mode set` while `skillhost serve` runs). Every process using the same database maps one shared
// 64-bit counter (ModeChangeCounter); set_mode and clear_mode add one to it after the store
// committed, and a lookup that sees a counter different from the one its entries were read at
// drops them and reads the store again. Seeing no change therefore costs one atomic load and no
// system call.
//
// The counter is shared by the processes of one machine; on PostgreSQL the other writers may be
// daemons on other machines. There each entry is kept at most `max_age` after the read that filled
// it began, and set_mode/clear_mode return only `max_age` after their change committed: by then no
// process still holds an entry read before the change, so a change made through any instance holds
// for the very next lookup on every instance (the client that changed the mode cannot reach another
// instance sooner than its answer). A notification (LISTEN/NOTIFY) could not promise that: it is
// delivered asynchronously, and the next request may reach the other instance first. A change
// written to the table by other means is seen within `max_age`.
#pragma once

#include "base/error.hpp"
#include "db/storage_location.hpp"
#include "policy/mode_change_counter.hpp"
#include "policy/mode_store.hpp"
#include "auth/user_context.hpp"
#include "auth/users.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace skillhost::policy {

class ModeCache {
public:
    // At most this many users' modes are kept; past it the cache starts over (a lookup then reads
    // the store once more), so memory stays bounded whatever user ids callers send.
    static constexpr std::size_t max_entries = 4096;

    // counter_file empty: no cache, every lookup reads the store. Errors: those of
    // ModeChangeCounter::open (DATABASE_ERROR naming the file).
    static Result<std::unique_ptr<ModeCache>> open(std::unique_ptr<ModeStore> store,
                                                   const std::filesystem::path& counter_file);
    // A cache whose entries live at most `max_age` (at least 1 ms), for a store other machines
    // change too; set_mode and clear_mode wait `max_age` after committing.
    static std::unique_ptr<ModeCache> open_shared(std::unique_ptr<ModeStore> store, std::chrono::milliseconds max_age);
    // How long entries live and changes wait on PostgreSQL: a user's mode is read at most this
    // often per instance, and a mode change takes this much longer.
    static constexpr std::chrono::milliseconds shared_max_age{100};
    // The cache for `location`: the counter next to the SQLite file (`<file>-modes`), or entries
    // of shared_max_age on PostgreSQL.
    static Result<std::unique_ptr<ModeCache>> open(std::unique_ptr<ModeStore> store,
                                                   const db::StorageLocation& location);

    Result<std::optional<auth::CognitiveMode>> stored_mode(std::string_view user_id) const;
    Result<auth::CognitiveMode> effective_mode(const auth::User& user) const;
    Status set_mode(std::string_view user_id, auth::CognitiveMode mode);
    Status clear_mode(std::string_view user_id);

    // The counter's file (empty when not caching).
    std::filesystem::path counter_file() const;

private:
    ModeCache(std::unique_ptr<ModeStore> store, std::unique_ptr<ModeChangeCounter> counter,
              std::chrono::milliseconds max_age)
        : store_(std::move(store)), counter_(std::move(counter)), max_age_(max_age) {}
    Result<std::optional<auth::CognitiveMode>> aged_stored_mode(std::string_view user_id) const;
    // After a change on a shared store: until every entry read before it has aged out.
    void wait_out_entries() const;

    struct AgedEntry {
        std::optional<auth::CognitiveMode> mode;
        std::chrono::steady_clock::time_point read_from;  // when the read that returned it began
    };

    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };

    std::unique_ptr<ModeStore> store_;
    std::unique_ptr<ModeChangeCounter> counter_;  // null: entries by age (max_age_ > 0) or no cache
    const std::chrono::milliseconds max_age_{0};
    mutable std::mutex mutex_;
    mutable std::uint64_t read_at_ = 0;  // the counter's value when the entries below were valid
    mutable bool valid_ = false;
    mutable std::unordered_map<std::string, std::optional<auth::CognitiveMode>, Hash, std::equal_to<>> entries_;
    mutable std::unordered_map<std::string, AgedEntry, Hash, std::equal_to<>> aged_;
};

// resolve_user_context with the mode from the cache.
Result<auth::UserContext> resolve_user_context(const auth::UserDirectory& users, const ModeCache& modes,
                                               std::string_view user_id);

}  // namespace skillhost::policy
