#include "upstream/rpc_channel.hpp"

#include "upstream/error_codes.hpp"

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

// A line as a log may show it: at most 120 bytes, control characters and non-ASCII as \xNN.
std::string printable(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 120)) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f) {
            out += c;
        } else {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\x";
            out += kHex[byte >> 4];
            out += kHex[byte & 0xf];
        }
    }
    if (text.size() > 120) out += "...";
    return out;
}

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
            Error error{errors::kUpstreamBusy, label_ + " already has " + std::to_string(waiting_.size()) +
                                                   " calls in flight (the limit); retry when some have finished"};
            error.details["limit"] = limits_.max_pending;
            return error;
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
    if (was_cancelled) return Error{errors::kUpstreamCancelled, "the call to " + label_ + " was cancelled"};
    Error error{errors::kUpstreamTimeout,
                label_ + " did not answer '" + std::string(method) + "' in time; the call was cancelled upstream"};
    error.details["method"] = std::string(method);
    return error;
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
    Error error{errors::kUpstreamMessageTooLarge,
                label_ + " answered with a message over max_message_bytes (" +
                    std::to_string(limits_.max_message_bytes) +
                    " bytes); ask for less (a smaller range or page), or raise limits.max_message_bytes in its "
                    "declaration"};
    error.details["limit"] = limits_.max_message_bytes;
    on_answer(*id, std::move(error));
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
    json::value message;
    std::error_code ec;
    message = json::parse(line, ec);
    const json::object* object = !ec ? message.if_object() : nullptr;
    const json::value* version = object != nullptr ? object->if_contains("jsonrpc") : nullptr;
    if (version == nullptr || !version->is_string() || version->get_string() != "2.0") {
        std::lock_guard lock(mutex_);
        if (++counters_.noise_lines <= 20)
            spdlog::warn("{} wrote a line that is not a JSON-RPC message (ignored): {}", label_, printable(line));
        return;
    }
    const json::value* method = object->if_contains("method");
    const json::value* id = object->if_contains("id");
    const json::value* params = object->if_contains("params");
    static const json::value kNoParams;
    if (method != nullptr && method->is_string()) {
        const std::string_view name = method->get_string();
        if (id != nullptr && !id->is_null()) {
            answer_request(*id, name, params != nullptr ? *params : kNoParams);
            return;
        }
        {
            std::lock_guard lock(mutex_);
            const auto now = Clock::now();
            if (now - notification_window_ >= std::chrono::seconds(1)) {
                notification_window_ = now;
                notifications_in_window_ = 0;
            }
            if (++notifications_in_window_ > limits_.notifications_per_second) {
                if (++counters_.dropped_notifications % 1000 == 1)
                    spdlog::warn("{} sends more than {} notifications a second; the rest are dropped ({} so far)",
                                 label_, limits_.notifications_per_second, counters_.dropped_notifications);
                return;
            }
        }
        if (handlers_.on_notification) handlers_.on_notification(name, params != nullptr ? *params : kNoParams);
        return;
    }
    if (id == nullptr || !id->is_int64()) {
        std::lock_guard lock(mutex_);
        ++counters_.unmatched_answers;
        return;
    }
    if (const json::value* result = object->if_contains("result")) {
        on_answer(id->get_int64(), *result);
        return;
    }
    const json::object* rpc_error = nullptr;
    if (const json::value* e = object->if_contains("error")) rpc_error = e->if_object();
    if (rpc_error == nullptr) {
        Error error{errors::kUpstreamProtocolError,
                    label_ + " answered with neither a result nor an error object; the server is not following MCP"};
        on_answer(id->get_int64(), std::move(error));
        return;
    }
    std::string text = "(no message)";
    if (const json::value* m = rpc_error->if_contains("message"); m != nullptr && m->is_string())
        text = std::string(m->get_string());
    Error error{errors::kUpstreamError, label_ + " answered with an error: " + text};
    if (const json::value* code = rpc_error->if_contains("code"); code != nullptr && code->is_int64())
        error.details["rpc_code"] = code->get_int64();
    if (const json::value* data = rpc_error->if_contains("data")) error.details["rpc_data"] = *data;
    on_answer(id->get_int64(), std::move(error));
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
    json::object answer{{"jsonrpc", "2.0"}, {"id", id}};
    if (result) {
        answer["result"] = std::move(result.value());
    } else {
        const bool unknown = result.error().is(errors::kUpstreamError);
        answer["error"] = json::object{{"code", unknown ? -32601 : -32603}, {"message", result.error().message}};
    }
    std::string line = json::serialize(answer);
    line += '\n';
    write_line(line, Clock::now() + std::chrono::seconds(5));
}

}  // namespace skillhost::upstream
