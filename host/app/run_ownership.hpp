// Runs in skillhost.db are owned by the process driving them, identified the way approval claims
// are (host, pid, kernel start time), so a restarted host can mark the runs of a dead process
// interrupted without touching those a live CLI or daemon is still driving.
#pragma once

#include "store/run_store.hpp"

namespace skillhost::app {

store::RunOwnership this_process_run_ownership();

}  // namespace skillhost::app
