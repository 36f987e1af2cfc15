// Runs a program of the host's own (npm, when a package is installed) directly, with no shell, in
// this process's environment (so the program's own settings, such as npm_config_cache, apply), its
// output kept up to a bound and the rest read and dropped, and the program and everything it
// started killed at a deadline.
#pragma once

#include "base/error.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace skillhost::plugin {

struct BoundedCommand {
    std::filesystem::path program;  // an absolute path
    std::vector<std::string> args;  // without argv[0]
    std::filesystem::path working_directory;
    std::chrono::milliseconds timeout{600000};
    std::size_t max_output_bytes = 1u << 20;  // of stdout, and again of stderr
};

struct CommandOutcome {
    int exit_code = -1;  // -1: ended by a signal (or killed at the deadline)
    bool timed_out = false;
    std::string out, err;
    bool out_truncated = false, err_truncated = false;
};

// The outcome; an error (with `code`) only when the program could not be started.
Result<CommandOutcome> run_bounded_command(const BoundedCommand& command, ErrorCode code);

// `name` looked up in $PATH (else /usr/local/bin:/usr/bin:/bin) as an executable file.
std::optional<std::filesystem::path> find_program(const std::string& name);

}  // namespace skillhost::plugin
