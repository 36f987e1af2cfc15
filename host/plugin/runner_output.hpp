// What plugin runners write to their stdout and stderr. Each runner's fd 1 and 2 are one pipe the
// host reads (never a descriptor of the daemon's: not its terminal, not its log): lines are cut at
// `max_line_bytes`, control characters escaped, every line logged as the plugin's and its user's,
// and a runner writing more than its rate gets the rest dropped and counted, so a plugin can
// neither forge the daemon's lines nor grow its log without bound. One thread reads every runner's
// pipe (epoll); it is started with the first runner and ends with the process.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace skillhost::plugin {

struct RunnerOutputLimits {
    std::size_t max_line_bytes = 4096;
    std::size_t lines_per_second = 100;
    std::size_t bytes_per_second = 64 * 1024;
};

// One line as the log shows it: control characters (and bytes that are not UTF-8 text) as \xNN,
// so nothing a plugin writes can start a new line, move the cursor or recolour a terminal.
std::string escape_output_line(std::string_view line);

// Cuts a runner's output into lines and applies the rate; `emit` gets each line to log (escaped)
// and the notes about what was dropped. Not thread-safe: one per pipe, used by the reading thread.
class RunnerOutputLines {
public:
    using Emit = std::function<void(std::string_view line)>;
    RunnerOutputLines(RunnerOutputLimits limits, Emit emit) : limits_(limits), emit_(std::move(emit)) {}
    void feed(std::string_view bytes, std::chrono::steady_clock::time_point now);
    void finish();  // the pipe ended: the last partial line, and what was dropped

private:
    void line(std::string_view text, std::chrono::steady_clock::time_point now);
    void report_dropped();

    RunnerOutputLimits limits_;
    Emit emit_;
    std::string partial_;
    bool cut_ = false;  // the current line was cut at max_line_bytes: skip to its end
    std::chrono::steady_clock::time_point window_{};
    std::size_t lines_in_window_ = 0;
    std::size_t bytes_in_window_ = 0;
    std::uint64_t dropped_lines_ = 0;
};

class RunnerOutput {
public:
    // The process's reader (started on first use, never destroyed).
    static RunnerOutput& shared();
    ~RunnerOutput();

    // Reads `fd` (the read end of a runner's output pipe; owned from here on) until it ends, logging
    // its lines as plugin `plugin`'s for `user`; `redact`, when set, rewrites each line before it is
    // logged (a foreign server's secrets).
    void watch(int fd, std::string plugin, std::string user, std::function<void(std::string&)> redact = {});

private:
    RunnerOutput();
    void loop();

    RunnerOutputLimits limits_;
    int epoll_ = -1;
    int wake_ = -1;
    std::mutex mutex_;
    std::map<int, std::unique_ptr<RunnerOutputLines>> sources_;
    std::thread thread_;
};

}  // namespace skillhost::plugin
