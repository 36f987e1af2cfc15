#include "mcp/stdio_transport.hpp"

#include "base/uninterruptible_threads.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <sys/uio.h>
#include <unistd.h>

namespace skillhost::mcp {

// What the reading threads share. Threads hold it by shared_ptr: one still handling a line that was
// handed over may return after read_lines() (and the transport) are gone.
struct ReadingTurns : std::enable_shared_from_this<ReadingTurns> {
    int in_fd = -1;
    std::size_t max_readers = 64;
    std::size_t max_line_bytes = 64 << 20;
    std::function<void(std::string_view)> on_line;

    // Only the thread holding the turn touches these (the turn passes under `mutex`).
    char buffer[65536];
    std::size_t buffered = 0;  // bytes in `buffer`
    std::size_t consumed = 0;  // of which already split into lines
    std::string pending;       // the line being assembled
    bool oversized = false;    // `pending` is a truncated prefix; the rest of the line is dropped
    bool input_done = false;

    std::mutex mutex;
    std::condition_variable changed;
    std::uint64_t lines = 0;      // lines handed out so far
    std::uint64_t busy_line = 0;  // the line the turn's holder is handling; 0 while it reads
    bool turn_free = false;       // handed over, waiting for a thread to take it
    bool ended = false;           // end of input: no more turns
    std::size_t threads = 0;      // reading threads alive
    std::size_t waiting = 0;      // of which parked, waiting for a turn

    // Adds bytes of the current line, or, once the line is past the limit, keeps only a prefix (it
    // fails to parse and is answered with a parse error) and drops the rest of the line.
    void append(const char* data, std::size_t size) {
        if (oversized) return;
        if (pending.size() + size <= max_line_bytes) {
            pending.append(data, size);
            return;
        }
        constexpr std::size_t kPrefix = 64;
        if (pending.size() < kPrefix) pending.append(data, std::min(size, kPrefix - pending.size()));
        pending.resize(std::min(pending.size(), kPrefix));
        oversized = true;
    }

    // The next line into `line`; false at end of input. Only the turn's holder calls it.
    bool next_line(std::string& line) {
        for (;;) {
            if (consumed < buffered) {
                const char* start = buffer + consumed;
                const auto* newline = static_cast<const char*>(std::memchr(start, '\n', buffered - consumed));
                if (!newline) {
                    append(start, buffered - consumed);
                    consumed = buffered;
                    continue;
                }
                append(start, static_cast<std::size_t>(newline - start));
                consumed += static_cast<std::size_t>(newline - start) + 1;
                return take_pending(line);
            }
            if (input_done)
                return (!pending.empty() || oversized) && take_pending(line);  // a last line without newline
            const ssize_t n = ::read(in_fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) spdlog::error("mcp: reading stdin failed: {}", std::strerror(errno));
            if (n <= 0) {
                input_done = true;
                continue;
            }
            buffered = static_cast<std::size_t>(n);
            consumed = 0;
        }
    }

    bool take_pending(std::string& line) {
        line.swap(pending);  // each keeps its capacity: no allocation per line
        pending.clear();
        oversized = false;
        return true;
    }

    // One reading thread: takes turns until end of input. `holding`: starts with the turn.
    void run(bool holding);
    void hand_over(std::uint64_t line);
    // Caller holds `mutex`. False when no thread could be started.
    bool start_thread(bool holding);
};

namespace {

thread_local ReadingTurns* current_turns = nullptr;
thread_local std::uint64_t current_line = 0;

}  // namespace

void ReadingTurns::run(bool holding) {
    current_turns = this;
    std::string line;
    for (;;) {
        if (!holding) {
            std::unique_lock lock(mutex);
            ++waiting;
            changed.wait(lock, [&] { return ended || turn_free; });
            --waiting;
            if (!turn_free) {
                --threads;
                return;
            }
            turn_free = false;
        }
        if (!next_line(line)) {
            std::lock_guard lock(mutex);
            ended = true;
            --threads;
            changed.notify_all();
            return;
        }
        std::uint64_t seq = 0;
        {
            std::lock_guard lock(mutex);
            seq = ++lines;
            busy_line = seq;
        }
        current_line = seq;
        try {
            on_line(line);
        } catch (const std::exception& e) {
            spdlog::error("mcp: handling a message failed: {}", e.what());
        }
        current_line = 0;
        std::lock_guard lock(mutex);
        holding = busy_line == seq;  // else the turn went to another thread meanwhile
        if (holding) busy_line = 0;
    }
}

bool ReadingTurns::start_thread(bool holding) {
    try {
        ++threads;
        // A reader may be inside a skill that never returns (calls run on the thread that read
        // them): the process owns it, and joins it once it has returned.
        uninterruptible_threads().start([self = shared_from_this(), holding] { self->run(holding); });
        return true;
    } catch (const std::exception& e) {
        --threads;
        spdlog::error("mcp: cannot start a thread to read stdin: {}", e.what());
        return false;
    }
}

void ReadingTurns::hand_over(std::uint64_t line) {
    std::lock_guard lock(mutex);
    if (ended || busy_line != line) return;  // that line is done: its thread goes on reading itself
    busy_line = 0;
    turn_free = true;
    // When no thread can take it, the first thread to finish its line does.
    if (waiting > 0)
        changed.notify_all();
    else if (threads < max_readers)
        start_thread(false);
}

StdioTransport::StdioTransport(int in_fd, int out_fd, std::size_t max_readers)
    : out_fd_(out_fd), turns_(std::make_shared<ReadingTurns>()) {
    turns_->in_fd = in_fd;
    turns_->max_readers = std::max<std::size_t>(1, max_readers);
}

StdioTransport::~StdioTransport() = default;

void StdioTransport::read_lines(std::function<void(std::string_view line)> on_line, std::size_t max_line_bytes) {
    ReadingTurns& turns = *turns_;
    turns.on_line = std::move(on_line);
    turns.max_line_bytes = max_line_bytes;
    // Not on this thread: a line may hold its thread in a hung skill, and end of input must still
    // return from here.
    std::unique_lock lock(turns.mutex);
    if (!turns.start_thread(true)) {
        lock.unlock();
        return turns.run(true);
    }
    turns.changed.wait(lock, [&] { return turns.ended; });
}

std::function<void()> StdioTransport::handover_for_this_line() {
    ReadingTurns* turns = current_turns;
    if (!turns || current_line == 0) return {};
    {
        std::lock_guard lock(turns->mutex);
        if (turns->waiting == 0 && turns->threads >= turns->max_readers) return {};
    }
    return [self = turns->shared_from_this(), line = current_line] { self->hand_over(line); };
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
