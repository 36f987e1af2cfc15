// What the sandboxed runner gives up before the plugin's code runs: every capability (in every set,
// the bounding set included, with the securebits that would give them back locked), its session
// and terminal, and the daemon's session keyring.
#pragma once

#include <optional>
#include <string>

namespace skillhost::runner {

// No controlling terminal (no TIOCSTI into the daemon's: a new session when one is attached), and a
// fresh, empty session keyring. Returns why not, when it could not.
std::optional<std::string> leave_session();

// Drops every capability for good: bounding set, ambient, inheritable, permitted and effective,
// with SECBIT_NOROOT, NO_SETUID_FIXUP, KEEP_CAPS and NO_CAP_AMBIENT_RAISE locked. Returns why not.
std::optional<std::string> drop_capabilities();

// The capability sets of this process as /proc/self/status shows them ("CapEff 0000000000000000"),
// for the sandbox report.
std::string capability_summary();

}  // namespace skillhost::runner
