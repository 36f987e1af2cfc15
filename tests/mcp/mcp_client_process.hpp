// A child process with its stdin and stdout kept open, for driving an interactive stdio server one
// line at a time. stderr is collected into a temp file so it can be shown when a test fails.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skillhost::testing {

class InteractiveProcess {
public:
    InteractiveProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {});
    ~InteractiveProcess();  // kills the child if it is still running
    InteractiveProcess(const InteractiveProcess&) = delete;
    InteractiveProcess& operator=(const InteractiveProcess&) = delete;

    void write_line(const std::string& line);
    // The next line of stdout, or nullopt on EOF or when nothing came within `timeout`.
    std::optional<std::string> read_line(std::chrono::milliseconds timeout);
    // Closes the child's stdin (EOF) and waits up to `timeout` for it to exit; returns its exit code,
    // or -1 if it had to be killed or died from a signal.
    int close_and_wait(std::chrono::milliseconds timeout);
    std::string stderr_text() const;

private:
    int pid_ = -1;
    int in_fd_ = -1;   // child's stdin
    int out_fd_ = -1;  // child's stdout
    std::string err_file_;
    std::string buffer_;
};

}  // namespace skillhost::testing
