#include "store/run_lease.hpp"
#include "store/error_codes.hpp"

#include "store/postgres_run_lease.hpp"

#include <map>
#include <mutex>

namespace skillhost::store {
namespace {

// One daemon on one SQLite file: nobody else can hold a lease, so every lease is granted, never
// expires and stays current; the epoch still counts acquisitions so claims behave as with PostgreSQL.
class SingleInstanceRunLeases final : public RunLeases {
public:
    SingleInstanceRunLeases(std::unique_ptr<RunStore> runs, std::string instance_id)
        : runs_(std::move(runs)), instance_id_(std::move(instance_id)) {}

    Result<RunLease> acquire(std::string_view run_id) override {
        std::lock_guard lock(mutex_);
        Held& held = held_[std::string(run_id)];
        ++held.epoch;
        return RunLease{std::string(run_id), instance_id_, held.epoch, 0};
    }
    Status heartbeat(RunLease& lease) override { return current(lease); }
    Result<StepClaim> claim_step(const RunLease& lease, int step) override {
        std::lock_guard lock(mutex_);
        auto found = held_.find(lease.run_id);
        if (found == held_.end() || found->second.epoch != lease.epoch)
            return run_lease_lost_error(lease, "it was acquired again");
        Held& held = found->second;
        if (step < held.claimed_step || (step == held.claimed_step && held.claimed_epoch == lease.epoch))
            return step_already_claimed_error(lease, step, held.claimed_step);
        const bool retry = step == held.claimed_step;
        held.claimed_step = step;
        held.claimed_epoch = lease.epoch;
        return StepClaim{step, retry};
    }
    Status save_fenced(const RunLease& lease, Run& run) override {
        if (auto st = current(lease); !st) return st;
        return runs_->save(run);
    }
    Status release(const RunLease&) override { return {}; }
    Result<LeaseSweep> sweep_expired() override { return LeaseSweep{true, {}}; }
    // One instance: whatever it claimed, its own process identity tells whether it still runs.
    Status announce_instance() override { return {}; }
    Status retire_instance() override { return {}; }
    Result<std::optional<bool>> instance_alive(std::string_view) override { return std::optional<bool>(); }
    Result<int> prune_instances(std::chrono::milliseconds) override { return 0; }

private:
    struct Held {
        std::int64_t epoch = 0;
        int claimed_step = -1;
        std::int64_t claimed_epoch = 0;
    };
    Status current(const RunLease& lease) {
        std::lock_guard lock(mutex_);
        auto found = held_.find(lease.run_id);
        if (found == held_.end() || found->second.epoch != lease.epoch)
            return run_lease_lost_error(lease, "it was acquired again");
        return {};
    }
    std::unique_ptr<RunStore> runs_;
    std::string instance_id_;
    std::mutex mutex_;
    std::map<std::string, Held, std::less<>> held_;
};

}  // namespace

Result<std::unique_ptr<RunLeases>> RunLeases::open(const db::StorageLocation& location, std::string instance_id,
                                                   std::chrono::milliseconds ttl, RunOwnership ownership) {
    if (location.backend == db::StorageBackend::postgres)
        return open_postgres_run_leases(location.postgres_url, std::move(instance_id), ttl);
    auto runs = RunStore::open(location, std::move(ownership));
    if (!runs) return runs.error();
    return std::unique_ptr<RunLeases>(new SingleInstanceRunLeases(std::move(runs.value()), std::move(instance_id)));
}

std::string instance_lease_key(std::string_view instance_id) {
    return "instance:" + std::string(instance_id);
}

Error run_lease_lost_error(const RunLease& lease, std::string_view why) {
    Error error{errors::kRunLeaseLost,
                "this instance (" + lease.owner + ") no longer holds the lease of run " + lease.run_id + " at epoch " +
                    std::to_string(lease.epoch) + ": " + std::string(why) +
                    "; another instance resumes it, so this one stops without writing it",
                {},
                {"follow the run with `skillhost runs show " + lease.run_id + "`"}};
    error.details["run_id"] = lease.run_id;
    error.details["epoch"] = lease.epoch;
    return error;
}

Error step_already_claimed_error(const RunLease& lease, int step, int claimed_step) {
    Error error{errors::kStepAlreadyClaimed,
                "step " + std::to_string(step) + " of run " + lease.run_id + " cannot be claimed: step " +
                    std::to_string(claimed_step) + " was already claimed at this epoch",
                {},
                {"claim each step once, in increasing order"}};
    error.details["run_id"] = lease.run_id;
    error.details["step"] = step;
    error.details["claimed_step"] = claimed_step;
    return error;
}

}  // namespace skillhost::store
