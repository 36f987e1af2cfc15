// Every operator run in skillhost.db (table `runs`): the whole record as JSON plus the columns
// `runs list` filters and sorts on. A run saved as awaiting_approval or needs_guidance is resumed
// from here after a restart. Thread-safe (one connection, serialised).
#pragma once

#include "base/error.hpp"
#include "db/sqlite_connection.hpp"
#include "store/run_record.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

namespace skillhost::store {

struct RunFilter {
    std::optional<std::string> user_id;
    std::optional<RunStatus> status;
    std::size_t limit = 50;  // newest first; 0: no limit
};

class RunStore {
public:
    // Opens (creating) the runs table. DATABASE_ERROR when the file cannot be used.
    static Result<std::unique_ptr<RunStore>> open(const std::filesystem::path& database_file);

    // Inserts or replaces the run by id (updated_ms is set to now).
    Status save(Run& run);
    // RUN_NOT_FOUND (with a hint to `skillhost runs list`) when there is no such run.
    Result<Run> get(std::string_view id) const;
    Result<std::vector<Run>> list(const RunFilter& filter = {}) const;
    // How many runs have each status (only statuses that occur).
    Result<std::map<std::string, std::uint64_t>> count_by_status() const;

private:
    explicit RunStore(db::SqliteConnection connection) : connection_(std::move(connection)) {}
    mutable std::mutex mutex_;
    db::SqliteConnection connection_;
};

}  // namespace skillhost::store
