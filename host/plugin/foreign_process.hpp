// The process of one foreign stdio MCP server: started directly (never through a shell) with the
// declared program, arguments and environment and nothing else of the daemon's (no inherited
// descriptor, no environment variable the declaration does not give, its own session and process
// group, no terminal). Its stdin and stdout are pipes for the MCP session; its stderr goes to the
// log as the server's lines (bounded and escaped, plugin/runner_output.hpp).
#pragma once

#include "base/error.hpp"

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace skillhost::plugin {

struct ForeignLaunch {
    std::string server;   // the declaration's name, for messages and log lines
    std::string command;  // a path, or a program name looked up in the fixed PATH below
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;  // added to PATH, HOME, LANG
    std::filesystem::path working_directory;
    std::filesystem::path relative_to;  // a relative command path is taken from here (the declaration's directory)
    // Set: the server starts inside skillhost-runner's sandbox (runner/server_exec.hpp) with these
    // options (plugin/runner_sandbox_args.hpp, plus --read-only and --data-dir); empty: unsandboxed.
    std::filesystem::path runner;
    std::vector<std::string> runner_args;
    std::chrono::milliseconds sandbox_timeout{10000};  // for the sandbox to be in place
    // The cgroup leaves of runner_args, removed once the process has ended.
    std::filesystem::path cgroup_leaf, cgroup_pids_leaf;
    // Rewrites each line the server writes to stderr before it is logged (its secrets' values).
    std::function<void(std::string&)> redact_output;
};

// The PATH a foreign server gets (and where a bare program name is looked up).
inline constexpr const char* kForeignServerPath = "/usr/local/bin:/usr/bin:/bin";

class ForeignProcess {
public:
    // RUNNER_START_FAILED (program not found or not executable, no pipes, spawn failed, or the
    // sandbox cannot execute it), SANDBOX_UNAVAILABLE (`sandbox: require` and a layer is missing).
    static Result<std::unique_ptr<ForeignProcess>> start(const ForeignLaunch& launch);
    // Closes what is still held, then ends the process: SIGTERM to its group, SIGKILL after `grace`.
    ~ForeignProcess();
    ForeignProcess(const ForeignProcess&) = delete;
    ForeignProcess& operator=(const ForeignProcess&) = delete;

    pid_t pid() const { return pid_; }
    // What the sandbox enforces (the runner's report, as a JSON object text); "" when unsandboxed.
    const std::string& sandbox_report() const { return sandbox_report_; }
    // The descriptors of the session, handed over once (-1 after).
    int take_stdin() { return std::exchange(stdin_fd_, -1); }
    int take_stdout() { return std::exchange(stdout_fd_, -1); }

    // Waits up to `limit` for the process to end and says how it ended ("exited with status 3",
    // "killed by SIGSEGV"); "" when it is still running.
    std::string wait_for_end(std::chrono::milliseconds limit);
    // SIGTERM to the process group, then SIGKILL after `grace`; reaps it.
    void stop(std::chrono::milliseconds grace);

private:
    ForeignProcess(pid_t pid, int stdin_fd, int stdout_fd) : pid_(pid), stdin_fd_(stdin_fd), stdout_fd_(stdout_fd) {}
    // Reads the runner's report until its fd 3 closes (the program runs) or a refusal arrives.
    std::optional<Error> await_sandbox(const ForeignLaunch& launch, int report_fd);
    void remove_cgroup_leaves();

    pid_t pid_;
    int stdin_fd_;
    int stdout_fd_;
    std::mutex mutex_;  // wait_for_end() runs on the session's reading thread and its owner's
    bool reaped_ = false;
    std::string ended_;
    std::string sandbox_report_;
    std::filesystem::path cgroup_leaf_, cgroup_pids_leaf_;
};

}  // namespace skillhost::plugin
