// A long-running program under test (a watcher, a server): started with pipes, read line by line
// with timeouts, signalled, and always killed when the object goes away.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace skillhost::testing {

class ChildProcess {
public:
    ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {});
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    // The next complete stdout line, or nullopt if none arrives within `timeout` (or stdout closed).
    std::optional<std::string> read_line(std::chrono::milliseconds timeout);
    // Reads stdout lines until one contains `needle`; returns it, or nullopt on timeout.
    std::optional<std::string> wait_for_line(const std::string& needle, std::chrono::milliseconds timeout);
    void write(const std::string& text);  // to stdin
    void close_stdin();
    void signal(int sig);
    // Waits for exit; returns the exit code (-1 when killed by a signal or on timeout, then killed).
    int wait(std::chrono::milliseconds timeout);
    // Everything read from stderr so far (drained without blocking).
    std::string stderr_text();
    pid_t pid() const { return pid_; }

private:
    void drain_stderr();
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1, err_ = -1;
    std::string out_buf_, err_buf_;
    bool exited_ = false;
    int exit_code_ = -1;
};

}  // namespace skillhost::testing
