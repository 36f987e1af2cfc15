#include "app/decision_upkeep.hpp"
#include "app/host_parts.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::app {

std::size_t recover_interrupted_decisions(HostRuntime& host) {
    std::size_t recovered = 0;
    if (parts_of(host).approvals) {
        if (auto ids = parts_of(host).approvals->recover_interrupted(); ids && !ids->empty()) {
            spdlog::warn("{} approved call(s) were interrupted by an earlier stop and are marked failed", ids->size());
            recovered += ids->size();
        }
    }
    if (parts_of(host).elicitations) {
        if (auto ids = parts_of(host).elicitations->recover_interrupted(); ids && !ids->empty()) {
            spdlog::warn("{} answered question(s) were interrupted by an earlier stop and are marked failed",
                         ids->size());
            recovered += ids->size();
        }
    }
    if (parts_of(host).definition_changes) {
        if (auto ids = parts_of(host).definition_changes->recover_interrupted(); ids && !ids->empty()) {
            spdlog::warn(
                "{} approved definition change(s) were interrupted by an earlier stop before the definition was "
                "pinned and are marked failed; the next listing of each server asks again",
                ids->size());
            recovered += ids->size();
        }
    }
    return recovered;
}

std::size_t record_unrecorded_decision_outcomes(HostRuntime& host) {
    std::size_t waiting = 0;
    if (parts_of(host).approvals) waiting += parts_of(host).approvals->record_unrecorded_outcomes();
    if (parts_of(host).elicitations) waiting += parts_of(host).elicitations->record_unrecorded_outcomes();
    return waiting;
}

std::optional<std::size_t> pending_approval_count(HostRuntime& host) {
    if (!parts_of(host).approvals) return std::nullopt;
    decisions::ApprovalFilter pending;
    pending.states = {decisions::ApprovalState::pending};
    auto records = parts_of(host).approvals->list(pending);
    if (!records) return std::nullopt;
    return records->size();
}

void add_decision_queues(SharedStateSweeperParts& parts, HostRuntime& host) {
    parts.approvals = parts_of(host).approvals.get();
    parts.elicitations = parts_of(host).elicitations.get();
    parts.definition_changes = parts_of(host).definition_changes.get();
}

}  // namespace skillhost::app
