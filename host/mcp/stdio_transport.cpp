#include "mcp/stdio_transport.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/uio.h>
#include <unistd.h>

namespace skillhost::mcp {

void StdioTransport::read_lines(const std::function<void(std::string_view line)>& on_line, std::size_t max_line_bytes) {
    std::string pending;
    bool oversized = false;
    // Adds bytes of the current line, or, once the line is past the limit, keeps only a prefix (it
    // fails to parse and is answered with a parse error) and drops the rest of the line.
    const auto append = [&](const char* data, std::size_t size) {
        if (oversized) return;
        if (pending.size() + size <= max_line_bytes) {
            pending.append(data, size);
            return;
        }
        constexpr std::size_t kPrefix = 64;
        if (pending.size() < kPrefix) pending.append(data, std::min(size, kPrefix - pending.size()));
        pending.resize(std::min(pending.size(), kPrefix));
        oversized = true;
    };
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(in_fd_, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) continue;
            spdlog::error("mcp: reading stdin failed: {}", std::strerror(errno));
            return;
        }
        if (n == 0) break;
        std::size_t start = 0;
        for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
            if (buffer[i] != '\n') continue;
            append(buffer + start, i - start);
            on_line(pending);
            pending.clear();
            oversized = false;
            start = i + 1;
        }
        append(buffer + start, static_cast<std::size_t>(n) - start);
    }
    if (!pending.empty()) on_line(pending);  // a last message without its newline
}

bool StdioTransport::write_line(const std::string& message) {
    std::lock_guard lock(write_mutex_);
    // The message and its newline in one system call, without copying the message.
    static const char newline = '\n';
    iovec parts[2] = {{const_cast<char*>(message.data()), message.size()}, {const_cast<char*>(&newline), 1}};
    iovec* next = parts;
    int left = 2;
    while (left > 0) {
        const ssize_t n = ::writev(out_fd_, next, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            spdlog::warn("mcp: writing to stdout failed: {}", std::strerror(errno));
            return false;
        }
        auto done = static_cast<std::size_t>(n);
        while (left > 0 && done >= next->iov_len) {
            done -= next->iov_len;
            ++next;
            --left;
        }
        if (left > 0) {
            next->iov_base = static_cast<char*>(next->iov_base) + done;
            next->iov_len -= done;
        }
    }
    return true;
}

}  // namespace skillhost::mcp
