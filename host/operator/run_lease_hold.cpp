#include "operator/run_lease_hold.hpp"
#include "store/error_codes.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::op {

Result<std::unique_ptr<RunLeaseHold>> RunLeaseHold::acquire(store::RunLeases& leases, std::string_view run_id,
                                                            std::chrono::milliseconds heartbeat,
                                                            std::shared_ptr<std::atomic<bool>> cancel) {
    auto lease = leases.acquire(run_id);
    if (!lease) return lease.error();
    return std::unique_ptr<RunLeaseHold>(
        new RunLeaseHold(leases, std::move(lease.value()), heartbeat, std::move(cancel)));
}

RunLeaseHold::RunLeaseHold(store::RunLeases& leases, store::RunLease lease, std::chrono::milliseconds heartbeat,
                           std::shared_ptr<std::atomic<bool>> cancel)
    : leases_(leases),
      heartbeat_(heartbeat),
      cancel_(std::move(cancel)),
      epoch_(lease.epoch),
      lease_(std::move(lease)),
      heartbeats_([this] { beat(); }) {}

RunLeaseHold::~RunLeaseHold() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    heartbeats_.join();
    if (lost()) return;
    if (auto released = leases_.release(current_lease()); !released)
        spdlog::warn("run {}: releasing its lease failed ({}); it expires by itself", lease_.run_id,
                     released.error().message);
}

store::RunLease RunLeaseHold::current_lease() const {
    std::lock_guard lock(mutex_);
    return lease_;
}

void RunLeaseHold::beat() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        wake_.wait_for(lock, heartbeat_, [this] { return stopping_; });
        if (stopping_) return;
        store::RunLease lease = lease_;
        lock.unlock();
        // Not under mutex_: a slow database must not hold up claims and saves of this run.
        auto extended = leases_.heartbeat(lease);
        lock.lock();
        if (extended) {
            lease_.expires_ms = lease.expires_ms;
            continue;
        }
        noticed(extended);
        if (lost()) {
            spdlog::warn("run {}: {}", lease.run_id, extended.error().message);
            return;
        }
        // A passing database error: the next beat tries again before the lease expires.
        spdlog::warn("run {}: extending its lease failed: {}", lease.run_id, extended.error().message);
    }
}

Status RunLeaseHold::noticed(Status status) {
    if (!status && status.error().is(errors::kRunLeaseLost)) {
        lost_.store(true);
        if (cancel_) cancel_->store(true);
    }
    return status;
}

Result<store::StepClaim> RunLeaseHold::claim_step(int step) {
    auto claimed = leases_.claim_step(current_lease(), step);
    if (!claimed) noticed(claimed.error());
    return claimed;
}

Error RunLeaseHold::lost_error() const {
    return store::run_lease_lost_error(current_lease(), "another instance took the run over after it expired");
}

Status RunLeaseHold::save(store::Run& run) {
    if (lost()) return lost_error();
    return noticed(leases_.save_fenced(current_lease(), run));
}

}  // namespace skillhost::op
