// The command line the host gives skillhost-runner: `--name value` pairs (a name may repeat, e.g.
// --read-only), and, in server mode, the program and its arguments after `--`. Only the host
// starts the runner, so an unknown or malformed option is ignored rather than explained.
#pragma once

#include "runner/sandbox.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace skillhost::runner {

class RunnerArgs {
public:
    // argv[first] onwards; stops at "--", whose followers are program().
    RunnerArgs(int argc, char** argv, int first);

    std::string text(const std::string& name) const;  // the last value given; "" when absent
    std::vector<std::string> all(const std::string& name) const;
    std::uint64_t number(const std::string& name, std::uint64_t fallback) const;
    const std::vector<std::string>& program() const { return program_; }

private:
    std::multimap<std::string, std::string> values_;
    std::vector<std::string> program_;
};

// The sandbox the host asked for: mode, limits, identity, the user's data directory and workspace,
// network, extra read-only paths (--read-only, repeatable). Joins the cgroup leaves the host
// prepared (--cgroup, --cgroup-pids) on the way, so everything the process allocates counts.
SandboxRequest sandbox_request(const RunnerArgs& args);

}  // namespace skillhost::runner
