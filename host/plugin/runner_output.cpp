#include "plugin/runner_output.hpp"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace skillhost::plugin {
namespace {

constexpr auto window_length = std::chrono::seconds(1);
constexpr std::size_t read_chunk = 64 * 1024;

// Length of the UTF-8 sequence starting at `i`, 0 when it is not a valid one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
    return n;
}

}  // namespace

std::string escape_output_line(std::string_view line) {
    std::string out;
    out.reserve(line.size());
    char hex[5];
    for (std::size_t i = 0; i < line.size();) {
        const auto c = static_cast<unsigned char>(line[i]);
        if (c >= 0x20 && c < 0x7F) {
            if (c == '\\') out += '\\';
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        if (c >= 0x80) {
            if (const std::size_t n = utf8_length(line, i); n > 0) {
                // C1 controls (U+0080..U+009F) steer terminals too.
                const bool c1 = c == 0xC2 && static_cast<unsigned char>(line[i + 1]) < 0xA0;
                if (!c1) {
                    out.append(line.substr(i, n));
                    i += n;
                    continue;
                }
            }
        }
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        out += hex;
        ++i;
    }
    return out;
}

void RunnerOutputLines::feed(std::string_view bytes, std::chrono::steady_clock::time_point now) {
    while (!bytes.empty()) {
        const std::size_t end = bytes.find('\n');
        const std::string_view piece = bytes.substr(0, end);
        if (!cut_) {
            const std::size_t room = limits_.max_line_bytes - partial_.size();
            partial_.append(piece.substr(0, room));
            if (piece.size() > room) {
                partial_ += " [line cut at " + std::to_string(limits_.max_line_bytes) + " bytes]";
                line(partial_, now);
                partial_.clear();
                cut_ = true;
            }
        }
        if (end == std::string_view::npos) return;
        if (!cut_) line(partial_, now);
        partial_.clear();
        cut_ = false;
        bytes.remove_prefix(end + 1);
    }
}

void RunnerOutputLines::line(std::string_view text, std::chrono::steady_clock::time_point now) {
    if (now - window_ >= window_length) {
        report_dropped();
        window_ = now;
        lines_in_window_ = 0;
        bytes_in_window_ = 0;
    }
    if (lines_in_window_ >= limits_.lines_per_second || bytes_in_window_ + text.size() > limits_.bytes_per_second) {
        ++dropped_lines_;
        return;
    }
    ++lines_in_window_;
    bytes_in_window_ += text.size();
    emit_(escape_output_line(text));
}

void RunnerOutputLines::report_dropped() {
    if (dropped_lines_ == 0) return;
    emit_("[skillhost: " + std::to_string(dropped_lines_) + " lines of output dropped: over " +
          std::to_string(limits_.lines_per_second) + " lines or " + std::to_string(limits_.bytes_per_second) +
          " bytes a second]");
    dropped_lines_ = 0;
}

void RunnerOutputLines::finish() {
    if (!partial_.empty() && !cut_) line(partial_, std::chrono::steady_clock::now());
    partial_.clear();
    report_dropped();
}

RunnerOutput& RunnerOutput::shared() {
    // Never destroyed (its thread ends with the process): a runner may still start while the
    // process runs its static destructors, and must find its reader there.
    static RunnerOutput* const output = new RunnerOutput;
    return *output;
}

RunnerOutput::RunnerOutput() : epoll_(::epoll_create1(EPOLL_CLOEXEC)), wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (epoll_ >= 0 && wake_ >= 0) {
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.fd = wake_;
        ::epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &event);
        thread_ = std::thread([this] { loop(); });
    } else {
        spdlog::warn("plugin runner output cannot be read (no epoll or eventfd); it is discarded");
    }
}

RunnerOutput::~RunnerOutput() {
    if (thread_.joinable()) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t written = ::write(wake_, &one, sizeof one);
        thread_.join();
    }
    for (auto& [fd, lines] : sources_) ::close(fd);
    if (wake_ >= 0) ::close(wake_);
    if (epoll_ >= 0) ::close(epoll_);
}

void RunnerOutput::watch(int fd, std::string plugin, std::string user, std::function<void(std::string&)> redact) {
    if (!thread_.joinable()) {
        ::close(fd);  // nobody reads it: the runner's writes fail with EPIPE instead of blocking
        return;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    auto lines = std::make_unique<RunnerOutputLines>(
        limits_, [logger = spdlog::default_logger(), plugin = std::move(plugin), user = std::move(user),
                  redact = std::move(redact)](std::string_view line) {
            if (!redact) return logger->info("[plugin {} user {}] output: {}", plugin, user, line);
            std::string text(line);
            redact(text);
            logger->info("[plugin {} user {}] output: {}", plugin, user, text);
        });
    {
        std::lock_guard lock(mutex_);
        sources_[fd] = std::move(lines);
    }
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.fd = fd;
    if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event) != 0) {
        std::lock_guard lock(mutex_);
        sources_.erase(fd);
        ::close(fd);
    }
}

void RunnerOutput::loop() {
    epoll_event events[32];
    std::string buffer(read_chunk, '\0');
    for (;;) {
        const int ready = ::epoll_wait(epoll_, events, 32, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            return;
        }
        for (int i = 0; i < ready; ++i) {
            const int fd = events[i].data.fd;
            if (fd == wake_) return;
            RunnerOutputLines* lines = nullptr;
            {
                std::lock_guard lock(mutex_);
                if (auto found = sources_.find(fd); found != sources_.end()) lines = found->second.get();
            }
            if (!lines) continue;
            // One chunk a wake-up: a runner writing without pause cannot keep the others unread.
            const ssize_t got = ::read(fd, buffer.data(), buffer.size());
            if (got > 0) {
                lines->feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)),
                            std::chrono::steady_clock::now());
                continue;
            }
            if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
            lines->finish();
            ::epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
            std::lock_guard lock(mutex_);
            sources_.erase(fd);
            ::close(fd);
        }
    }
}

}  // namespace skillhost::plugin
