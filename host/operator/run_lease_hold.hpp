// The lease an operator holds while it drives a run on a database several instances share: taken
// before the run is driven, extended by a heartbeat thread, given up when the run stops or pauses.
// When a heartbeat finds the lease gone (this instance stalled past its expiry and another took
// the run over), the hold says so and sets the run's cancellation flag, so the current model
// request or skill call stops and the operator ends the run here without writing it.
#pragma once

#include "base/error.hpp"
#include "store/run_lease.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

namespace skillhost::op {

class RunLeaseHold {
public:
    // Takes the lease of `run_id` and starts heartbeats every `heartbeat`. `cancel` (not null) is
    // set when the lease is lost. RUN_LEASE_HELD when another live instance drives the run.
    static Result<std::unique_ptr<RunLeaseHold>> acquire(store::RunLeases& leases, std::string_view run_id,
                                                         std::chrono::milliseconds heartbeat,
                                                         std::shared_ptr<std::atomic<bool>> cancel);
    ~RunLeaseHold();  // stops the heartbeats and releases the lease
    RunLeaseHold(const RunLeaseHold&) = delete;
    RunLeaseHold& operator=(const RunLeaseHold&) = delete;

    // True once the lease changed hands: nothing more of this run may be written from here.
    bool lost() const { return lost_.load(); }
    // Claims step `step` (0-based) before its skill runs; RUN_LEASE_LOST marks the hold lost.
    Result<store::StepClaim> claim_step(int step);
    // Writes the run only while the lease is current; RUN_LEASE_LOST marks the hold lost.
    Status save(store::Run& run);
    // The fencing epoch this hold drives the run under (fixed for the hold's life): events the run
    // emits carry it, so the shared event log refuses them once another instance took over.
    std::int64_t epoch() const { return epoch_; }
    // RUN_LEASE_LOST for this lease: what the operator answers once lost() is true.
    Error lost_error() const;

private:
    RunLeaseHold(store::RunLeases& leases, store::RunLease lease, std::chrono::milliseconds heartbeat,
                 std::shared_ptr<std::atomic<bool>> cancel);
    void beat();
    // Marks the hold lost when `status` is RUN_LEASE_LOST; returns it unchanged.
    Status noticed(Status status);
    store::RunLease current_lease() const;

    store::RunLeases& leases_;
    const std::chrono::milliseconds heartbeat_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::atomic<bool> lost_{false};
    const std::int64_t epoch_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    store::RunLease lease_;   // guarded by mutex_ (the heartbeat moves its expiry)
    std::thread heartbeats_;  // last: started after everything it uses
};

}  // namespace skillhost::op
