// MCP over stdio: newline-delimited JSON-RPC messages read from one fd and written to another.
// Nothing but MCP messages is ever written to the output fd (logs go to stderr).
//
// Reading is leader/follower: one thread at a time holds the reading turn, reads the next line
// and handles it itself, so a tools/call can run on the thread that read it (no hand-off per
// call). When the handling of a line turns out to take long (a slow skill), hand_over() passes
// the turn to another thread, which goes on reading (notifications/cancelled, pings, other calls)
// while the first one finishes.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace skillhost::mcp {

struct ReadingTurns;

class StdioTransport {
public:
    // At most `max_readers` threads read or handle lines at once (each beyond the first is one
    // still handling a line that ran long); when all are busy, handover_for_this_line() says no.
    StdioTransport(int in_fd, int out_fd, std::size_t max_readers = 64);
    ~StdioTransport();
    StdioTransport(const StdioTransport&) = delete;
    StdioTransport& operator=(const StdioTransport&) = delete;

    // Reads lines until end of input (or a read error) and hands each to `on_line` (without the
    // newline), in order, on the reading threads; returns at end of input without waiting for lines
    // that are still being handled after a hand-over (their handler must answer them itself, e.g. a
    // session's close()). Lines longer than max_line_bytes are handed on as a truncated text that
    // fails to parse instead of growing memory without bound. Call once.
    void read_lines(std::function<void(std::string_view line)> on_line, std::size_t max_line_bytes = 64 << 20);

    // On a reading thread inside on_line: an action that, called from any thread while that line
    // is still being handled, gives the reading turn to another thread (harmless afterwards).
    // Empty outside on_line, or when no further reading thread may be started.
    static std::function<void()> handover_for_this_line();

    // Writes `message` plus a newline, whole, even from several threads. False when the reader of
    // the output went away (EPIPE) or another write error happened.
    bool write_line(const std::string& message);

private:
    int out_fd_;
    std::shared_ptr<ReadingTurns> turns_;
    std::mutex write_mutex_;
};

}  // namespace skillhost::mcp
