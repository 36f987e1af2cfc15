#include "exec/deadline_watcher.hpp"

#include <cstdint>

namespace skillhost::exec {

struct WatcherCore {
    std::chrono::milliseconds tick;
    std::mutex mutex;
    std::condition_variable wake;
    std::vector<std::shared_ptr<WatchedCall>> calls;
    std::uint64_t watches = 0;  // grows with every watch(): tells the thread calls are still coming
    bool parked = false;
    bool stopping = false;

    // Caller holds the mutex.
    void remove_at(std::size_t slot) {
        calls[slot]->slot_ = WatchedCall::unwatched;
        if (slot + 1 != calls.size()) {
            calls[slot] = std::move(calls.back());
            calls[slot]->slot_ = slot;
        }
        calls.pop_back();
    }

    void run();
};

namespace {

using Clock = std::chrono::steady_clock;
// Ticks without any new call after which the thread parks instead of ticking on.
constexpr std::uint64_t kIdleTicksBeforeParking = 500;

}  // namespace

void WatcherCore::run() {
    WatcherCore& core = *this;
    std::vector<std::pair<std::shared_ptr<WatchedCall>, WatchedCall::Expiry>> due;
    std::vector<std::shared_ptr<WatchedCall>> running_long;
    std::uint64_t seen_watches = 0;
    std::uint64_t idle_ticks = 0;
    std::unique_lock lock(core.mutex);
    while (!core.stopping) {
        if (core.calls.empty() && core.watches == seen_watches && idle_ticks >= kIdleTicksBeforeParking) {
            core.parked = true;
            core.wake.wait(lock, [&] { return core.stopping || !core.calls.empty(); });
            core.parked = false;
            idle_ticks = 0;
            continue;
        }
        core.wake.wait_for(lock, core.tick);
        idle_ticks = core.watches == seen_watches ? idle_ticks + 1 : 0;
        seen_watches = core.watches;
        const auto now = Clock::now();
        for (std::size_t i = core.calls.size(); i-- > 0;) {
            WatchedCall& call = *core.calls[i];
            std::optional<WatchedCall::Expiry> why;
            if (call.cancel_requested())
                why = WatchedCall::Expiry::cancelled;
            else if (auto deadline = call.deadline(); deadline && now >= *deadline)
                why = WatchedCall::Expiry::deadline;
            if (!why) {
                if (call.long_reported_) continue;
                if (auto after = call.long_after(); after && now >= *after) {
                    call.long_reported_ = true;
                    running_long.push_back(core.calls[i]);
                }
                continue;
            }
            due.emplace_back(core.calls[i], *why);
            core.remove_at(i);
        }
        if (due.empty() && running_long.empty()) continue;
        lock.unlock();
        for (auto& call : running_long) call->running_long();
        running_long.clear();
        for (auto& [call, why] : due) call->expire(why);
        due.clear();
        lock.lock();
    }
    for (auto& call : core.calls) {
        call->slot_ = WatchedCall::unwatched;
        due.emplace_back(std::move(call), WatchedCall::Expiry::shutdown);
    }
    core.calls.clear();
    lock.unlock();
    for (auto& [call, why] : due) call->expire(why);
}

DeadlineWatcher::DeadlineWatcher(std::chrono::milliseconds tick) : core_(std::make_shared<WatcherCore>()) {
    core_->tick = tick;
    thread_ = std::thread([core = core_] { core->run(); });
}

DeadlineWatcher::~DeadlineWatcher() {
    {
        std::lock_guard lock(core_->mutex);
        core_->stopping = true;
    }
    core_->wake.notify_one();
    thread_.join();
}

void DeadlineWatcher::watch(const std::shared_ptr<WatchedCall>& call) {
    bool wake = false;
    {
        std::lock_guard lock(core_->mutex);
        if (!core_->stopping) {
            call->watcher_ = core_;
            call->slot_ = core_->calls.size();
            call->long_reported_ = false;
            core_->calls.push_back(call);
            ++core_->watches;
            wake = core_->parked;
        }
    }
    if (!call->watcher_) return call->expire(WatchedCall::Expiry::shutdown);
    if (wake) core_->wake.notify_one();
}

void WatchedCall::stop_watching() {
    if (!watcher_) return;
    std::lock_guard lock(watcher_->mutex);
    if (slot_ != unwatched) watcher_->remove_at(slot_);
}

}  // namespace skillhost::exec
