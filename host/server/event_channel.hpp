// One subscriber's queue of stream events: the producer pushes from any thread, the event-stream
// thread waits for the next one. A subscriber that falls too far behind is cut off (closed).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

namespace skillhost::server {

struct StreamEvent {
    std::string name;                   // the SSE event field
    std::string data;                   // compact JSON
    std::string id{};                   // the SSE id field, when the stream can be resumed
    std::chrono::milliseconds retry{};  // the SSE retry field, when set
};

class EventChannel {
public:
    explicit EventChannel(std::size_t max_queued = 10000) : max_queued_(max_queued) {}

    // Ignored once closed. Closes the channel when more than max_queued events wait.
    void push(StreamEvent event);
    // After the queued events, next() reports the end.
    void close();
    // The next event, waiting up to `wait`; nullopt on timeout or at the end (see ended()).
    std::optional<StreamEvent> next(std::chrono::milliseconds wait);
    // Closed and drained.
    bool ended() const;
    bool closed() const;

private:
    const std::size_t max_queued_;
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<StreamEvent> queue_;
    bool closed_ = false;
};

}  // namespace skillhost::server
