// What a long-running front end (the daemon) does to keep the pending decisions in order, as use
// cases over the runtime, so no front end reaches into the decision queues itself.
#pragma once

#include "app/host_runtime.hpp"
#include "app/shared_state_sweeper.hpp"

#include <cstddef>
#include <optional>

namespace skillhost::app {

// Decisions of every kind claimed by a process that is gone (a call approved or answered when the
// host stopped) are marked failed, never run again. Returns how many; logs each kind's count.
std::size_t recover_interrupted_decisions(HostRuntime& host);

// Outcomes the database refused earlier (full, read-only, unreachable) are stored now if it takes
// writes again. Returns how many still wait, of every kind.
std::size_t record_unrecorded_decision_outcomes(HostRuntime& host);

// How many approvals wait for a person now (nullopt when the database cannot say).
std::optional<std::size_t> pending_approval_count(HostRuntime& host);

// The sweeper's decision queues (expiry, claims of instances that are gone), from the runtime.
void add_decision_queues(SharedStateSweeperParts& parts, HostRuntime& host);

}  // namespace skillhost::app
