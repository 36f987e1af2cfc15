// Every operator run in skillhost.db (table `runs`): the whole record as JSON plus the columns
// `runs list` filters and sorts on. A run saved as awaiting_approval or needs_guidance is resumed
// from here after a restart. Thread-safe (one connection, serialised).
#pragma once

#include "base/error.hpp"
#include "db/sqlite_connection.hpp"
#include "store/run_record.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

namespace skillhost::store {

// Which process drives a running run, so a restarted host can tell runs whose process died
// (interrupted) from runs another live process (a CLI next to the daemon) is still driving. The
// store only compares and stores the text; the caller knows how to identify processes.
struct RunOwnership {
    std::string self;                                      // this process; empty: runs are not owned
    std::function<bool(std::string_view owner)> is_alive;  // false only when the owner is surely gone
};

struct RunFilter {
    std::optional<std::string> user_id;
    std::optional<RunStatus> status;
    std::size_t limit = 50;  // newest first; 0: no limit
};

class RunStore {
public:
    // Opens (creating) the runs table. DATABASE_ERROR when the file cannot be used.
    static Result<std::unique_ptr<RunStore>> open(const std::filesystem::path& database_file,
                                                  RunOwnership ownership = {});

    // Inserts or replaces the run by id (updated_ms is set to now). A running run is recorded as
    // owned by this process.
    Status save(Run& run);
    // Compare-and-set: stores `run` (whose status the caller set to running) only if the stored run
    // is still `expected`, so of two processes resuming one run exactly one drives it. The loser gets
    // RUN_ALREADY_RESUMED with the status it found.
    Status claim(Run& run, RunStatus expected);
    // Runs left `running` by a process that is gone become `interrupted` (with an error saying so);
    // runs of live processes and runs saved without an owner are left alone. Their ids.
    Result<std::vector<std::string>> mark_interrupted();
    // RUN_NOT_FOUND (with a hint to `skillhost runs list`) when there is no such run.
    Result<Run> get(std::string_view id) const;
    Result<std::vector<Run>> list(const RunFilter& filter = {}) const;
    // How many runs have each status (only statuses that occur).
    Result<std::map<std::string, std::uint64_t>> count_by_status() const;

private:
    RunStore(db::SqliteConnection connection, RunOwnership ownership)
        : connection_(std::move(connection)), ownership_(std::move(ownership)) {}
    // Binds this process as the owner of a running run, NULL otherwise.
    void bind_owner(db::SqliteStatement& statement, int index, const Run& run) const;
    mutable std::mutex mutex_;
    db::SqliteConnection connection_;
    RunOwnership ownership_;
};

}  // namespace skillhost::store
