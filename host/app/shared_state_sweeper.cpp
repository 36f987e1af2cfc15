#include "app/shared_state_sweeper.hpp"

#include "app/run_ownership.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::app {
namespace {

// Interrupted runs looked at per sweep, so a backlog is worked off in bounded steps.
constexpr std::size_t max_resumes_per_sweep = 20;
// Marks failed the decisions of `queue` claimed by a process that is gone, logging each (`each`
// names the id with {}).
template <class Queue, class Alive>
void recover_claims(Queue& queue, const Alive& claimer_alive, std::string_view kind,
                    fmt::format_string<const std::string&> each) {
    auto ids = queue.recover_interrupted(claimer_alive);
    if (!ids) {
        spdlog::warn("serve: recovering interrupted {} failed: {}", kind, ids.error().message);
        return;
    }
    for (const auto& id : *ids) spdlog::warn("serve: {}", fmt::format(each, id));
}

// Waiting runs looked at per sweep (each a lookup of its approval or question).
constexpr std::size_t max_waiting_looked_at = 100;
// Runs remembered as not continuable here; past this the memory starts over.
constexpr std::size_t max_remembered = 1000;

}  // namespace

SharedStateSweeper::SharedStateSweeper(SharedStateSweeperParts parts)
    : parts_(std::move(parts)), thread_([this] { loop(); }) {}

SharedStateSweeper::~SharedStateSweeper() {
    stop();
}

void SharedStateSweeper::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void SharedStateSweeper::loop() {
    auto next_sweep = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        lock.unlock();
        if (auto announced = parts_.leases->announce_instance(); !announced)
            spdlog::warn("serve: announcing this instance failed: {}", announced.error().message);
        if (std::chrono::steady_clock::now() >= next_sweep) {
            sweep();
            next_sweep = std::chrono::steady_clock::now() + parts_.sweep_interval;
        }
        lock.lock();
        const auto wait = std::min<std::chrono::steady_clock::duration>(
            parts_.heartbeat, std::max<std::chrono::steady_clock::duration>(
                                  next_sweep - std::chrono::steady_clock::now(), std::chrono::milliseconds(1)));
        wake_.wait_for(lock, wait, [this] { return stopping_; });
    }
}

void SharedStateSweeper::sweep() {
    auto swept = parts_.leases->sweep_expired();
    if (!swept) {
        spdlog::warn("serve: sweeping expired run leases failed: {}", swept.error().message);
    } else if (swept->elected) {
        for (const auto& id : swept->interrupted)
            spdlog::warn("serve: run {} lost its instance (lease expired); marked interrupted to be resumed", id);
        if (auto expired = parts_.approvals->expire_due(); !expired)
            spdlog::warn("serve: expiring approvals failed: {}", expired.error().message);
        if (parts_.definition_changes) expire_definition_changes();
        store::RunLeases* leases = parts_.leases;
        const auto claimer_alive = [leases](const decisions::ProcessIdentity& claimer) {
            auto alive = leases->instance_alive(process_owner_text(claimer));
            if (!alive) return true;  // cannot tell now: leave it for the next sweep
            if (alive->has_value()) return **alive;
            return decisions::process_is_alive(claimer);  // a CLI process: same-host check only
        };
        // Before the pruning below, like the approvals: a pruned instance could no longer be judged.
        if (parts_.elicitations)
            recover_claims(*parts_.elicitations, claimer_alive, "questions",
                           "question {} was answered on an instance that stopped before its call finished; marked "
                           "failed (not re-run)");
        if (parts_.definition_changes)
            recover_claims(*parts_.definition_changes, claimer_alive, "definition changes",
                           "definition change {} was approved on an instance that stopped before it pinned the "
                           "definition; marked failed (the next listing of the server asks again)");
        auto recovered = parts_.approvals->recover_interrupted(claimer_alive);
        if (!recovered) {
            spdlog::warn("serve: recovering interrupted approvals failed: {}", recovered.error().message);
        } else {
            for (const auto& id : *recovered)
                spdlog::warn(
                    "serve: approval {} was being executed by an instance that stopped; marked failed "
                    "(not re-run)",
                    id);
            // Only after the recovery above judged every claim: a claim whose instance row is gone
            // could no longer be told from one of a CLI process on another machine.
            if (auto pruned = parts_.leases->prune_instances(parts_.forget_instances_after); !pruned)
                spdlog::warn("serve: forgetting stopped instances failed: {}", pruned.error().message);
            else if (*pruned > 0)
                spdlog::debug("serve: forgot {} instances stopped for over {} ms", *pruned,
                              parts_.forget_instances_after.count());
        }
    }
    resume_interrupted_runs();
    resume_runs_waiting_on_nothing();
}

// Like an expired approval, an expired definition change is audited by its queue; the tool stays
// refused, and its next listing asks again.
void SharedStateSweeper::expire_definition_changes() {
    auto expired = parts_.definition_changes->expire_due();
    if (!expired) {
        spdlog::warn("serve: expiring definition changes failed: {}", expired.error().message);
        return;
    }
    for (const auto& id : *expired)
        spdlog::info(
            "serve: definition change {} expired before an owner decided it; its tool stays refused and the "
            "server's next listing asks again",
            id);
}

void SharedStateSweeper::resume_runs_waiting_on_nothing() {
    if (!parts_.resume_stopped) return;
    for (const auto status : {store::RunStatus::awaiting_approval, store::RunStatus::awaiting_input}) {
        store::RunFilter filter;
        filter.status = status;
        filter.limit = max_waiting_looked_at;
        auto waiting = parts_.runs->list(filter);
        if (!waiting) {
            spdlog::warn("serve: listing waiting runs failed: {}", waiting.error().message);
            continue;
        }
        for (const auto& run : *waiting) {
            if (parts_.working && parts_.working(run.id)) continue;
            // Still waiting on a person for most of them (APPROVAL_STILL_PENDING): nothing started.
            if (auto resumed = parts_.resume_stopped(run.id); resumed)
                spdlog::info("serve: run {} was left {} on something that ended; resuming it", run.id,
                             store::to_string(status));
        }
    }
}

void SharedStateSweeper::resume_interrupted_runs() {
    const std::uint64_t catalog = parts_.catalog_version ? parts_.catalog_version() : 0;
    if (catalog != cannot_continue_catalog_ || cannot_continue_.size() > max_remembered) {
        cannot_continue_.clear();
        cannot_continue_catalog_ = catalog;
    }
    store::RunFilter filter;
    filter.status = store::RunStatus::interrupted;
    filter.limit = max_resumes_per_sweep + cannot_continue_.size();
    auto interrupted = parts_.runs->list(filter);
    if (!interrupted) {
        spdlog::warn("serve: listing interrupted runs failed: {}", interrupted.error().message);
        return;
    }
    std::size_t offered = 0;
    for (const auto& run : *interrupted) {
        if (offered == max_resumes_per_sweep) break;
        if (cannot_continue_.count(run.id)) continue;
        if (parts_.working && parts_.working(run.id)) continue;
        ++offered;
        if (auto here = parts_.op->can_continue_here(run); !here) {
            cannot_continue_.insert(run.id);
            // Resuming records why in the run once; other instances may have the versions.
            if (run.error && run.error->code == here.error().code) continue;
        }
        if (auto resumed = parts_.resume_interrupted(run.id); !resumed)
            spdlog::debug("serve: not resuming run {}: {}", run.id, resumed.error().message);
    }
}

}  // namespace skillhost::app
