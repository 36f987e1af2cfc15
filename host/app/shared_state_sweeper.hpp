// A daemon's share of the upkeep of state several instances keep in one PostgreSQL database, on a
// thread of its own: every heartbeat it announces this instance as alive; every sweep interval the
// instance elected by an expiring lease (store::RunLeases::sweep_expired: a stalled instance loses
// it) turns runs whose lease expired into interrupted ones, expires
// approvals and definition changes past their TTL, fails approvals whose executing instance is gone (never re-running
// them), definition changes whose approving instance died before it pinned them, and questions whose answering instance died before the call they answered finished, and then deletes announcements of instances dead for longer than `forget_instances_after`
// (by then every sweep since has recovered what they held), and every instance offers to resume
// interrupted runs (a compare-and-set picks one, and only an instance that has the plugin versions a
// run used takes it) and runs left waiting on an approval or question that ended without anyone
// resuming them (its executor died, it expired, the resuming instance stopped).
#pragma once

#include "operator/operator.hpp"
#include "decisions/approval_queue.hpp"
#include "decisions/definition_change_queue.hpp"
#include "decisions/elicitation_queue.hpp"
#include "store/run_lease.hpp"
#include "store/run_store.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace skillhost::app {

struct SharedStateSweeperParts {
    store::RunLeases* leases = nullptr;  // required; not owned (all of these outlive the sweeper)
    decisions::ApprovalQueue* approvals = nullptr;
    decisions::ElicitationQueue* elicitations = nullptr;             // optional
    decisions::DefinitionChangeQueue* definition_changes = nullptr;  // optional
    store::RunStore* runs = nullptr;
    const op::Operator* op = nullptr;
    // Starts resuming an interrupted run in the background (the daemon's run hub), and whether a
    // run is being worked on here already.
    std::function<Status(const std::string& run_id)> resume_interrupted;
    // Starts resuming a run waiting on an approval or question, when that has ended (RunHub::resume_stopped).
    std::function<Status(const std::string& run_id)> resume_stopped;
    std::function<bool(const std::string& run_id)> working;
    std::function<std::uint64_t()> catalog_version;  // a reload may bring plugin versions runs wait for
    std::chrono::milliseconds heartbeat{10000};
    std::chrono::milliseconds sweep_interval{5000};
    // Many lease TTLs: an instance's announcement outlives it long enough for every sweep to have
    // judged its claims; after that only the row would remain, one per daemon start.
    std::chrono::milliseconds forget_instances_after{std::chrono::hours(1)};
};

class SharedStateSweeper {
public:
    explicit SharedStateSweeper(SharedStateSweeperParts parts);
    ~SharedStateSweeper();  // stop()
    SharedStateSweeper(const SharedStateSweeper&) = delete;
    SharedStateSweeper& operator=(const SharedStateSweeper&) = delete;

    // Ends the thread (waits for a sweep in progress). Idempotent.
    void stop();

private:
    void loop();
    void sweep();
    void expire_definition_changes();
    void resume_interrupted_runs();
    void resume_runs_waiting_on_nothing();

    SharedStateSweeperParts parts_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    // Runs this instance cannot continue (plugin versions it lacks), skipped until a reload.
    std::set<std::string> cannot_continue_;
    std::uint64_t cannot_continue_catalog_ = 0;
    std::thread thread_;  // last: started after everything it uses
};

}  // namespace skillhost::app
