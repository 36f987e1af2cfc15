// Each user's stored cognitive mode kept in memory, so a skill call does not read the database.
// It sits in front of any ModeStore (SQLite or PostgreSQL) and has the store's API.
//
// A mode change must apply to the very next call, also when another process made it (`skillhost
// mode set` while `skillhost serve` runs). Every process using the same database maps one shared
// 64-bit counter (ModeChangeCounter); set_mode and clear_mode add one to it after the store
// committed, and a lookup that sees a counter different from the one its entries were read at
// drops them and reads the store again. Seeing no change therefore costs one atomic load and no
// system call. The counter is shared by the processes of one machine: several hosts on one
// PostgreSQL database must run without a counter (`counter_file` empty), which reads the store on
// every lookup as before.
#pragma once

#include "base/error.hpp"
#include "policy/mode_change_counter.hpp"
#include "policy/mode_store.hpp"
#include "policy/user_context.hpp"
#include "policy/users.hpp"

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

    Result<std::optional<CognitiveMode>> stored_mode(std::string_view user_id) const;
    Result<CognitiveMode> effective_mode(const User& user) const;
    Status set_mode(std::string_view user_id, CognitiveMode mode);
    Status clear_mode(std::string_view user_id);

    // The counter's file (empty when not caching).
    std::filesystem::path counter_file() const;

private:
    ModeCache(std::unique_ptr<ModeStore> store, std::unique_ptr<ModeChangeCounter> counter)
        : store_(std::move(store)), counter_(std::move(counter)) {}

    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };

    std::unique_ptr<ModeStore> store_;
    std::unique_ptr<ModeChangeCounter> counter_;  // null: not caching
    mutable std::mutex mutex_;
    mutable std::uint64_t read_at_ = 0;  // the counter's value when the entries below were valid
    mutable bool valid_ = false;
    mutable std::unordered_map<std::string, std::optional<CognitiveMode>, Hash, std::equal_to<>> entries_;
};

// resolve_user_context with the mode from the cache.
Result<UserContext> resolve_user_context(const UserDirectory& users, const ModeCache& modes, std::string_view user_id);

}  // namespace skillhost::policy
