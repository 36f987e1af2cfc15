// Every operator run in skillhost.db (table `runs`): the whole record as JSON plus the columns
// `runs list` filters and sorts on. A run saved as awaiting_approval or needs_guidance is resumed
// from here after a restart. Implementations are thread-safe (one connection, serialised).
#pragma once

#include "base/error.hpp"
#include "db/storage_location.hpp"
#include "store/run_record.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <memory>
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

// The interface every backend implements; the SQLite one (sqlite_run_store.cpp) is the embedded
// default, the PostgreSQL one (postgres_run_store.cpp) is shared by several daemons.
class RunStore {
public:
    // Opens (creating) the runs table in the SQLite file. DATABASE_ERROR when the file cannot be used.
    static Result<std::unique_ptr<RunStore>> open(const std::filesystem::path& database_file,
                                                  RunOwnership ownership = {});
    // Opens the runs of whichever backend `location` names (migrating its schema first).
    static Result<std::unique_ptr<RunStore>> open(const db::StorageLocation& location, RunOwnership ownership = {});

    virtual ~RunStore() = default;

    // Inserts or replaces the run by id (updated_ms is set to now). A running run is recorded as
    // owned by this process.
    virtual Status save(Run& run) = 0;
    // Compare-and-set: stores `run` (whose status the caller set to running) only if the stored run
    // is still `expected`, so of two processes resuming one run exactly one drives it. The loser gets
    // RUN_ALREADY_RESUMED with the status it found.
    virtual Status claim(Run& run, RunStatus expected) = 0;
    // Runs left `running` by a process that is gone become `interrupted` (with an error saying so);
    // runs of live processes and runs saved without an owner are left alone. Their ids.
    virtual Result<std::vector<std::string>> mark_interrupted() = 0;
    // RUN_NOT_FOUND (with a hint to `skillhost runs list`) when there is no such run.
    virtual Result<Run> get(std::string_view id) const = 0;
    virtual Result<std::vector<Run>> list(const RunFilter& filter = {}) const = 0;
    // How many runs have each status (only statuses that occur).
    virtual Result<std::map<std::string, std::uint64_t>> count_by_status() const = 0;
};

// What every backend answers alike, so the two cannot drift apart in wording.
Error run_not_found_error(std::string_view id);
Error run_already_resumed_error(const Run& run, RunStatus expected, std::string_view found);
// A stored record back into a Run; RUN_RECORD_INVALID when it is not valid JSON.
Result<Run> parse_stored_run(std::string_view record, std::string_view id);
// The record of a run whose driving process is gone: status interrupted, an error saying how to resume.
Run interrupted_run(Run run);
// Whether a running run owned by `owner` was left behind by a process that is gone.
bool owner_is_gone(const RunOwnership& ownership, std::string_view owner);

}  // namespace skillhost::store
