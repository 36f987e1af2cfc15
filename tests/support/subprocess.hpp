// Runs a program the way a user would from a shell and captures what it printed.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace skillhost::testing {

struct ProcessResult {
    int exit_code = -1;  // -1 when killed by a signal
    int signal = 0;
    std::string out;
    std::string err;
};

// Runs `argv[0]` with `argv`, extra environment variables `env` (added to the current ones), and
// `input` on stdin. Kills the child after `timeout_ms` (then exit_code is -1, signal SIGKILL).
ProcessResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
                          const std::string& input = {}, int timeout_ms = 60000);

// The skillhost binary as a CLI test runs it: each command's arguments, then --config and --home.
struct SkillhostCommand {
    std::string binary, config, home;
    std::map<std::string, std::string> env;  // added to the current environment
    int timeout_ms = 60000;
    ProcessResult operator()(std::vector<std::string> args) const;
};

}  // namespace skillhost::testing
