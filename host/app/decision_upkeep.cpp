#include "app/decision_upkeep.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::app {

std::size_t recover_interrupted_decisions(HostRuntime& host) {
    std::size_t recovered = 0;
    if (host.approvals) {
        if (auto ids = host.approvals->recover_interrupted(); ids && !ids->empty()) {
            spdlog::warn("{} approved call(s) were interrupted by an earlier stop and are marked failed", ids->size());
            recovered += ids->size();
        }
    }
    if (host.elicitations) {
        if (auto ids = host.elicitations->recover_interrupted(); ids && !ids->empty()) {
            spdlog::warn("{} answered question(s) were interrupted by an earlier stop and are marked failed",
                         ids->size());
            recovered += ids->size();
        }
    }
    return recovered;
}

std::size_t record_unrecorded_decision_outcomes(HostRuntime& host) {
    std::size_t waiting = 0;
    if (host.approvals) waiting += host.approvals->record_unrecorded_outcomes();
    if (host.elicitations) waiting += host.elicitations->record_unrecorded_outcomes();
    return waiting;
}

std::optional<std::size_t> pending_approval_count(HostRuntime& host) {
    if (!host.approvals) return std::nullopt;
    decisions::ApprovalFilter pending;
    pending.states = {decisions::ApprovalState::pending};
    auto records = host.approvals->list(pending);
    if (!records) return std::nullopt;
    return records->size();
}

void add_decision_queues(SharedStateSweeperParts& parts, HostRuntime& host) {
    parts.approvals = host.approvals.get();
    parts.elicitations = host.elicitations.get();
}

}  // namespace skillhost::app
