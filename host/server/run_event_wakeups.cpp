#include "server/run_event_wakeups.hpp"

#include "db/postgres_listener.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

namespace skillhost::server {

RunEventWakeups::RunEventWakeups(std::string url, std::function<void(const std::string&)> on_run,
                                 std::function<void()> on_reconnect)
    : url_(std::move(url)), on_run_(std::move(on_run)), on_reconnect_(std::move(on_reconnect)) {
    thread_ = std::thread([this] { loop(); });
}

RunEventWakeups::~RunEventWakeups() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        if (listener_) listener_->wake();
    }
    stop_.notify_all();
    thread_.join();
}

void RunEventWakeups::loop() {
    std::chrono::milliseconds backoff{0};
    bool opened_before = false;
    while (true) {
        db::PgListener* listener = nullptr;
        {
            std::unique_lock lock(mutex_);
            if (backoff.count() > 0) stop_.wait_for(lock, backoff, [this] { return stopping_; });
            if (stopping_) return;
            if (!listener_) {
                lock.unlock();
                auto opened = db::PgListener::open(url_, {std::string(db::run_events_channel)});
                lock.lock();
                if (!opened) {
                    backoff = std::min<std::chrono::milliseconds>(
                        std::max<std::chrono::milliseconds>(backoff * 2, std::chrono::milliseconds(200)),
                        std::chrono::seconds(5));
                    spdlog::warn("serve: cannot listen for run events (retrying in {} ms): {}", backoff.count(),
                                 opened.error().message);
                    continue;
                }
                listener_ = std::move(opened.value());
                backoff = std::chrono::milliseconds(0);
                if (opened_before) {
                    lock.unlock();
                    spdlog::info("serve: listening for run events again; re-reading the runs followed here");
                    on_reconnect_();
                    lock.lock();
                }
                opened_before = true;
                if (stopping_) return;
            }
            listener = listener_.get();
        }
        auto heard = listener->wait(std::chrono::seconds(5));
        if (!heard) {
            spdlog::warn("serve: {}", heard.error().message);
            std::lock_guard lock(mutex_);
            listener_.reset();
            backoff = std::chrono::milliseconds(200);
            continue;
        }
        std::set<std::string> runs;
        for (const auto& note : heard.value()) runs.insert(note.payload);
        for (const auto& run : runs) on_run_(run);
    }
}

}  // namespace skillhost::server
