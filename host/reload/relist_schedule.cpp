#include "reload/relist_schedule.hpp"

#include <spdlog/spdlog.h>

#include <system_error>

namespace skillhost::reload {

RelistSchedule::RelistSchedule(std::chrono::milliseconds min_gap, std::function<void(const std::string& server)> relist)
    : min_gap_(min_gap), relist_(std::move(relist)) {}

RelistSchedule::~RelistSchedule() {
    stop();
}

void RelistSchedule::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    stopping_changed_.notify_all();
    threads_.join_all();
}

void RelistSchedule::request(const std::string& server) {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    Server& state = servers_[server];
    state.wanted = true;
    if (state.running) return;  // its thread lists it once more
    state.running = true;
    try {
        threads_.start([this, server] { work(server); });
    } catch (const std::system_error& e) {
        state.running = false;
        spdlog::error(
            "cannot start a thread to list the tools of MCP server '{}' again ({}); they are listed before its "
            "next call, and the catalog follows at its next notification or reload",
            server, e.what());
    }
}

void RelistSchedule::work(const std::string& server) {
    std::unique_lock lock(mutex_);
    for (;;) {
        Server& state = servers_[server];
        if (stopping_changed_.wait_until(lock, state.last + min_gap_, [this] { return stopping_; })) {
            state.running = false;
            return;
        }
        state.wanted = false;
        state.last = std::chrono::steady_clock::now();
        lock.unlock();
        relist_(server);
        lock.lock();
        if (!servers_[server].wanted || stopping_) {
            servers_[server].running = false;
            return;
        }
    }
}

}  // namespace skillhost::reload
