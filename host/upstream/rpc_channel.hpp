// One JSON-RPC 2.0 connection to an MCP server over a pair of descriptors (a stdio server's stdout
// and stdin), newline-delimited as the MCP stdio transport frames it. Requests are matched to their
// answers by id; a request written is never written again. Everything the server sends is hostile
// until checked: a line over `max_message_bytes` is dropped (the call it answers fails naming the
// limit), a line that is not a JSON-RPC message is counted and logged as noise, notifications past
// their rate are dropped and counted, and at most `max_pending` calls wait at once.
//
// Threads: one reading thread per channel, owned and joined by the destructor. call() and notify()
// may be called from any thread; call() blocks its caller until the answer, the deadline, the
// caller's cancellation or the end of the connection. The handlers run on the reading thread: they
// must return quickly (the next answer is not read before they do).
#pragma once

#include "base/error.hpp"
#include "upstream/notification_rate.hpp"
#include "upstream/transport.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <atomic>
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

namespace skillhost::upstream {

struct RpcCounters {
    std::uint64_t noise_lines = 0;            // lines that are not JSON-RPC messages
    std::uint64_t oversized_messages = 0;     // lines over max_message_bytes
    std::uint64_t dropped_notifications = 0;  // over the rate
    std::uint64_t unmatched_answers = 0;      // answers to no call in flight (late, or never asked)
};

class RpcChannel final : public Transport {
public:
    // Takes both descriptors (closed by the destructor). `label` names the server in messages
    // ("MCP server 'everything'").
    RpcChannel(std::string label, int read_fd, int write_fd, RpcLimits limits, RpcHandlers handlers);
    ~RpcChannel();
    RpcChannel(const RpcChannel&) = delete;
    RpcChannel& operator=(const RpcChannel&) = delete;

    // As Transport says. notify() is false when the write did not finish by `deadline`, which
    // closes the channel: half a line cannot be taken back.
    Result<boost::json::value> call(std::string_view method, boost::json::object params, Clock::time_point deadline,
                                    const std::atomic<bool>* cancelled = nullptr) override;
    bool notify(std::string_view method, boost::json::object params, Clock::time_point deadline) override;
    void close(const std::string& reason) override;
    bool closed() const override;
    std::string closed_reason() const override;
    RpcCounters counters() const;
    std::size_t pending() const;

private:
    struct Waiting {
        std::condition_variable done;
        bool answered = false;
        Result<boost::json::value> answer{boost::json::value()};
    };

    void read_loop();
    void on_line(std::string_view line);
    void on_oversized(std::string_view head, std::string_view tail);
    void on_answer(std::int64_t id, Result<boost::json::value> answer);
    void answer_request(const boost::json::value& id, std::string_view method, const boost::json::value& params);
    void write_answer(const boost::json::value& id, Result<boost::json::value> result);
    bool write_line(const std::string& line, Clock::time_point deadline);
    void end(const std::string& reason);

    const std::string label_;
    const int read_fd_;
    const int write_fd_;
    int wake_[2] = {-1, -1};
    const RpcLimits limits_;
    const RpcHandlers handlers_;

    mutable std::mutex mutex_;
    std::map<std::int64_t, std::shared_ptr<Waiting>> waiting_;
    std::int64_t next_id_ = 1;
    bool closed_ = false;
    std::string closed_reason_;
    RpcCounters counters_;
    NotificationRate rate_{limits_.notifications_per_second};

    std::mutex write_mutex_;
    std::thread reader_;
};

}  // namespace skillhost::upstream
