#include "store/run_store.hpp"
#include "store/error_codes.hpp"

#include "store/postgres_run_store.hpp"
#include "store/sqlite_run_store.hpp"

#include <boost/json/parse.hpp>

namespace skillhost::store {

Result<std::unique_ptr<RunStore>> RunStore::open(const std::filesystem::path& database_file, RunOwnership ownership) {
    return open_sqlite_run_store(database_file, std::move(ownership));
}

Result<std::unique_ptr<RunStore>> RunStore::open(const db::StorageLocation& location, RunOwnership ownership) {
    if (location.backend == db::StorageBackend::postgres)
        return open_postgres_run_store(location.postgres_url, std::move(ownership));
    return open_sqlite_run_store(location.sqlite_file, std::move(ownership));
}

Error run_not_found_error(std::string_view id) {
    Error error{errors::kRunNotFound,
                "there is no run '" + std::string(id) + "' — `skillhost runs list` shows the recent runs",
                {},
                {"Run `skillhost runs list` to see run ids"}};
    error.details["run_id"] = std::string(id);
    return error;
}

Error run_already_resumed_error(const Run& run, RunStatus expected, std::string_view found) {
    Error error{errors::kRunAlreadyResumed,
                "run " + run.id + " is no longer " + to_string(expected) + " (it is " + std::string(found) +
                    "): another process resumed it first, so this one does not drive it",
                {},
                {"follow it with `skillhost runs show " + run.id + "`"}};
    error.details["run_id"] = run.id;
    error.details["expected"] = to_string(expected);
    error.details["status"] = std::string(found);
    return error;
}

Result<Run> parse_stored_run(std::string_view record, std::string_view id) {
    boost::system::error_code ec;
    auto value = boost::json::parse(record, ec);
    if (ec) {
        Error error{errors::kRunRecordInvalid,
                    id.empty() ? std::string("a stored run record is not valid JSON; the database may be damaged")
                               : "the stored record of run " + std::string(id) + " is not valid JSON",
                    {},
                    {}};
        if (!id.empty()) error.details["run_id"] = std::string(id);
        return error;
    }
    return Run::from_json(value);
}

Run interrupted_run(Run run) {
    run.status = RunStatus::interrupted;
    run.updated_ms = unix_ms_now();
    Error error{errors::kRunInterrupted,
                "the process driving this run stopped before it finished; it continues from its last saved "
                "step with `skillhost runs resume " +
                    run.id + "`",
                {},
                {}};
    error.details["run_id"] = run.id;
    run.error = std::move(error);
    return run;
}

bool owner_is_gone(const RunOwnership& ownership, std::string_view owner) {
    return owner != ownership.self && ownership.is_alive && !ownership.is_alive(owner);
}

}  // namespace skillhost::store
