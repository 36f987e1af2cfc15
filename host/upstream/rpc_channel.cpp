#include "upstream/rpc_channel.hpp"

#include "upstream/call_errors.hpp"
#include "upstream/error_codes.hpp"
#include "upstream/rpc_message.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace skillhost::upstream {
namespace json = boost::json;
namespace {

constexpr std::size_t kTailBytes = 256;  // what is kept of an oversized line, to find its id

// The numeric id after `"id"` at `at` in `text`, if any.
std::optional<std::int64_t> id_at(std::string_view text, std::size_t at) {
    if (at == std::string_view::npos) return std::nullopt;
    std::size_t i = at + 4;
    while (i < text.size() && (text[i] == ' ' || text[i] == ':')) ++i;
    std::int64_t id = 0;
    std::size_t digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 18) {
        id = id * 10 + (text[i] - '0');
        ++i;
        ++digits;
    }
    if (digits == 0) return std::nullopt;
    return id;
}

// The call an oversized answer belongs to, from what was kept of it: the id written before the
// result (`{"jsonrpc":"2.0","id":7,"result":...`) or, as the TypeScript SDK writes it, after.
std::optional<std::int64_t> id_of_oversized(std::string_view head, std::string_view tail) {
    const std::size_t in_head = head.find("\"id\"");
    const std::size_t body = std::min(head.find("\"result\""), head.find("\"error\""));
    if (in_head != std::string_view::npos && in_head < body) return id_at(head, in_head);
    return id_at(tail, tail.rfind("\"id\""));
}

Error closed_error(const std::string& label, const std::string& reason) {
    Error error{errors::kUpstreamClosed, "the connection to " + label + " ended (" + reason +
                                             "); the call was not completed. The server is restarted on the next call; "
                                             "if this repeats, check its log lines"};
    error.details["reason"] = reason;
    return error;
}

}  // namespace

RpcChannel::RpcChannel(std::string label, int read_fd, int write_fd, RpcLimits limits, RpcHandlers handlers)
    : label_(std::move(label)),
      read_fd_(read_fd),
      write_fd_(write_fd),
      limits_(limits),
      handlers_(std::move(handlers)) {
    const int flags = ::fcntl(write_fd_, F_GETFL);
    if (flags >= 0) ::fcntl(write_fd_, F_SETFL, flags | O_NONBLOCK);
    if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
    reader_ = std::thread([this] { read_loop(); });
}

RpcChannel::~RpcChannel() {
    close("the connection was closed by skillhost");
    if (reader_.joinable()) reader_.join();
    ::close(read_fd_);
    ::close(write_fd_);
    if (wake_[0] >= 0) ::close(wake_[0]);
    if (wake_[1] >= 0) ::close(wake_[1]);
}

bool RpcChannel::closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
}

std::string RpcChannel::closed_reason() const {
    std::lock_guard lock(mutex_);
    return closed_reason_;
}

RpcCounters RpcChannel::counters() const {
    std::lock_guard lock(mutex_);
    return counters_;
}

std::size_t RpcChannel::pending() const {
    std::lock_guard lock(mutex_);
    return waiting_.size();
}

void RpcChannel::close(const std::string& reason) {
    end(reason);
    if (wake_[1] >= 0) {
        const char byte = 1;
        [[maybe_unused]] const auto written = ::write(wake_[1], &byte, 1);
    }
}

void RpcChannel::end(const std::string& reason) {
    std::map<std::int64_t, std::shared_ptr<Waiting>> waiting;
    {
        std::lock_guard lock(mutex_);
        if (closed_) return;
        closed_ = true;
        closed_reason_ = reason;
        waiting.swap(waiting_);
        for (auto& [id, entry] : waiting) {
            entry->answer = closed_error(label_, reason);
            entry->answered = true;
            entry->done.notify_all();
        }
    }
}

bool RpcChannel::write_line(const std::string& line, Clock::time_point deadline) {
    std::lock_guard lock(write_mutex_);
    std::size_t written = 0;
    while (written < line.size()) {
        const ssize_t n = ::write(write_fd_, line.data() + written, line.size() - written);
        if (n > 0) {
            written += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN) {
            close(std::string("writing to it failed: ") + std::strerror(errno));
            return false;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            // Part of a message may be written: the stream cannot be used any more.
            if (written > 0) close("it stopped reading its input in the middle of a message");
            return false;
        }
        pollfd out{write_fd_, POLLOUT, 0};
        ::poll(&out, 1, static_cast<int>(std::min<long long>(left, 1000)));
    }
    return true;
}

Result<json::value> RpcChannel::call(std::string_view method, json::object params, Clock::time_point deadline,
                                     const std::atomic<bool>* cancelled) {
    auto waiting = std::make_shared<Waiting>();
    std::int64_t id = 0;
    {
        std::lock_guard lock(mutex_);
        if (closed_) return closed_error(label_, closed_reason_);
        if (waiting_.size() >= limits_.max_pending) {
            return busy_error(label_, waiting_.size(), limits_.max_pending);
        }
        id = next_id_++;
        waiting_.emplace(id, waiting);
    }
    json::object request{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.empty()) request["params"] = std::move(params);
    std::string line = json::serialize(request);
    line += '\n';
    const bool sent = write_line(line, deadline);
    std::unique_lock lock(mutex_);
    if (!sent && !waiting->answered) {
        waiting_.erase(id);
        if (closed_) return closed_error(label_, closed_reason_);
        Error error{errors::kUpstreamTimeout,
                    label_ + " did not read the request in time (its input is full); it may be wedged"};
        return error;
    }
    bool was_cancelled = false;
    while (!waiting->answered) {
        if (cancelled != nullptr && cancelled->load()) {
            was_cancelled = true;
            break;
        }
        const auto now = Clock::now();
        if (now >= deadline) break;
        const auto slice = cancelled != nullptr ? std::min(deadline, now + std::chrono::milliseconds(20)) : deadline;
        waiting->done.wait_until(lock, slice);
    }
    if (waiting->answered) return std::move(waiting->answer);
    waiting_.erase(id);
    lock.unlock();
    const std::string reason = was_cancelled ? "the caller cancelled the call" : "the call's deadline passed";
    notify("notifications/cancelled", json::object{{"requestId", id}, {"reason", reason}},
           Clock::now() + std::chrono::seconds(1));
    return unanswered_error(label_, method, was_cancelled);
}

bool RpcChannel::notify(std::string_view method, json::object params, Clock::time_point deadline) {
    if (closed()) return false;
    json::object message{{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.empty()) message["params"] = std::move(params);
    std::string line = json::serialize(message);
    line += '\n';
    return write_line(line, deadline);
}

void RpcChannel::read_loop() {
    std::string line;
    std::string head;  // the start of a line being dropped for its size
    std::string tail;  // its end
    bool dropping = false;
    char buffer[65536];
    std::string reason;
    while (true) {
        pollfd fds[2] = {{read_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
        const int ready = ::poll(fds, wake_[0] >= 0 ? 2 : 1, wake_[0] >= 0 ? -1 : 200);
        if (ready < 0 && errno != EINTR) {
            reason = std::string("waiting for its output failed: ") + std::strerror(errno);
            break;
        }
        if (closed()) return;
        if (ready <= 0 || (fds[0].revents == 0)) continue;
        const ssize_t n = ::read(read_fd_, buffer, sizeof buffer);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) {
            reason = n == 0 ? "its output ended" : std::string("reading its output failed: ") + std::strerror(errno);
            break;
        }
        std::string_view chunk(buffer, static_cast<std::size_t>(n));
        while (!chunk.empty()) {
            const std::size_t newline = chunk.find('\n');
            const std::string_view piece = chunk.substr(0, newline);
            if (dropping) {
                tail.append(piece);
                if (tail.size() > kTailBytes) tail.erase(0, tail.size() - kTailBytes);
            } else if (line.size() + piece.size() > limits_.max_message_bytes) {
                dropping = true;
                head.assign(line.substr(0, kTailBytes));
                head.append(piece.substr(0, kTailBytes - head.size()));
                tail.assign(line.size() > kTailBytes ? line.substr(line.size() - kTailBytes) : line);
                tail.append(piece);
                if (tail.size() > kTailBytes) tail.erase(0, tail.size() - kTailBytes);
                line.clear();
                line.shrink_to_fit();
            } else {
                line.append(piece);
            }
            if (newline == std::string_view::npos) break;
            chunk.remove_prefix(newline + 1);
            if (dropping) {
                on_oversized(head, tail);
                head.clear();
                tail.clear();
                dropping = false;
            } else {
                on_line(line);
                line.clear();
            }
        }
    }
    if (handlers_.describe_end) {
        const std::string how = handlers_.describe_end();
        if (!how.empty()) reason += ": " + how;
    }
    end(reason);
}

void RpcChannel::on_oversized(std::string_view head, std::string_view tail) {
    const auto id = id_of_oversized(head, tail);
    {
        std::lock_guard lock(mutex_);
        ++counters_.oversized_messages;
    }
    spdlog::warn("{} sent a message over max_message_bytes ({} bytes); it was dropped", label_,
                 limits_.max_message_bytes);
    if (!id) return;
    on_answer(*id, too_large_error(label_, limits_.max_message_bytes));
}

void RpcChannel::on_answer(std::int64_t id, Result<json::value> answer) {
    std::lock_guard lock(mutex_);
    const auto it = waiting_.find(id);
    if (it == waiting_.end()) {
        ++counters_.unmatched_answers;
        return;
    }
    it->second->answer = std::move(answer);
    it->second->answered = true;
    it->second->done.notify_all();
    waiting_.erase(it);
}

void RpcChannel::on_line(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    std::error_code ec;
    const json::value message = json::parse(line, ec);
    IncomingMessage read = ec ? IncomingMessage{} : read_message(message, label_);
    switch (read.kind) {
        case IncomingMessage::Kind::noise: {
            std::lock_guard lock(mutex_);
            if (++counters_.noise_lines <= 20)
                spdlog::warn("{} wrote a line that is not a JSON-RPC message (ignored): {}", label_, printable(line));
            return;
        }
        case IncomingMessage::Kind::request: return answer_request(*read.id, read.method, *read.params);
        case IncomingMessage::Kind::notification: {
            {
                std::lock_guard lock(mutex_);
                if (!rate_.admit(Clock::now())) {
                    counters_.dropped_notifications = rate_.dropped();
                    if (rate_.dropped() % 1000 == 1)
                        spdlog::warn("{} sends more than {} notifications a second; the rest are dropped ({} so far)",
                                     label_, rate_.per_second(), rate_.dropped());
                    return;
                }
            }
            if (handlers_.on_notification) handlers_.on_notification(read.method, *read.params);
            return;
        }
        case IncomingMessage::Kind::stray: {
            std::lock_guard lock(mutex_);
            ++counters_.unmatched_answers;
            return;
        }
        case IncomingMessage::Kind::answer: return on_answer(read.answer_id, std::move(read.answer));
    }
}

void RpcChannel::answer_request(const json::value& id, std::string_view method, const json::value& params) {
    if (method == "ping") return write_answer(id, json::value(json::object()));
    if (!handlers_.on_request) {
        return write_answer(
            id, Error{errors::kUpstreamError, "skillhost does not offer '" + std::string(method) + "' to this server"});
    }
    handlers_.on_request(method, params,
                         [this, id](Result<json::value> result) { write_answer(id, std::move(result)); });
}

void RpcChannel::write_answer(const json::value& id, Result<json::value> result) {
    std::string line = answer_text(id, std::move(result));
    line += '\n';
    write_line(line, Clock::now() + std::chrono::seconds(5));
}

}  // namespace skillhost::upstream
