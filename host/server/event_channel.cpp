#include "server/event_channel.hpp"

namespace skillhost::server {

void EventChannel::push(StreamEvent event) {
    {
        std::lock_guard lock(mutex_);
        if (closed_) return;
        if (queue_.size() >= max_queued_) {
            closed_ = true;  // a consumer this far behind is not reading: end its stream
        } else {
            queue_.push_back(std::move(event));
        }
    }
    ready_.notify_all();
}

void EventChannel::close() {
    {
        std::lock_guard lock(mutex_);
        closed_ = true;
    }
    ready_.notify_all();
}

std::optional<StreamEvent> EventChannel::next(std::chrono::milliseconds wait) {
    std::unique_lock lock(mutex_);
    ready_.wait_for(lock, wait, [this] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return std::nullopt;
    StreamEvent event = std::move(queue_.front());
    queue_.pop_front();
    return event;
}

bool EventChannel::ended() const {
    std::lock_guard lock(mutex_);
    return closed_ && queue_.empty();
}

bool EventChannel::closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
}

}  // namespace skillhost::server
