// Runs in skillhost.db are owned by the process driving them, identified the way approval claims
// are (host, pid, kernel start time), so a restarted host can mark the runs of a dead process
// interrupted without touching those a live CLI or daemon is still driving.
#pragma once

#include "decisions/process_identity.hpp"
#include "store/run_store.hpp"

#include <string>

namespace skillhost::app {

store::RunOwnership this_process_run_ownership();

// "<host>/<pid>/<start ticks>": how a process is named as a run's owner and as an instance.
std::string process_owner_text(const decisions::ProcessIdentity& id);

}  // namespace skillhost::app
