// MCP over stdio: newline-delimited JSON-RPC messages read from one fd and written to another.
// Nothing but MCP messages is ever written to the output fd (logs go to stderr).
#pragma once

#include <functional>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

namespace skillhost::mcp {

class StdioTransport {
public:
    StdioTransport(int in_fd, int out_fd) : in_fd_(in_fd), out_fd_(out_fd) {}

    // Reads lines until end of input (or a read error) and hands each to `on_line` (without the
    // newline). Lines longer than max_line_bytes are answered as one oversized line (on_line gets a
    // truncated text that fails to parse) instead of growing memory without bound.
    void read_lines(const std::function<void(std::string_view line)>& on_line, std::size_t max_line_bytes = 64 << 20);

    // Writes `message` plus a newline, whole, even from several threads. False when the reader of
    // the output went away (EPIPE) or another write error happened.
    bool write_line(const std::string& message);

private:
    int in_fd_;
    int out_fd_;
    std::mutex write_mutex_;
};

}  // namespace skillhost::mcp
