// Answers for calls that are still running when their deadline passes or their caller cancels them.
//
// A call runs on one thread (the caller's own, or one pool worker) and nobody waits on it while it
// runs. This one thread looks at the calls being watched every `tick` and, for a call past its
// deadline or whose cancel flag is set, calls its expire() so the caller is answered at once, while
// the plugin (which cannot be interrupted, only asked to stop) keeps its thread until it returns.
//
// Watching a call costs a lock and a vector slot, never a wake-up: the thread keeps ticking while
// calls come and only parks (until the next watch) after a second without any.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace skillhost::exec {

struct WatcherCore;

class WatchedCall {
public:
    enum class Expiry { deadline, cancelled, shutdown };

    virtual ~WatchedCall() = default;
    virtual std::optional<std::chrono::steady_clock::time_point> deadline() const = 0;
    virtual bool cancel_requested() const = 0;
    // When the call counts as running long (the watcher calls running_long() once then); nullopt:
    // never. Lets a caller that runs calls on a thread it also needs for something else (the MCP
    // stdio reader) give that work to another thread only for calls that do not finish at once.
    virtual std::optional<std::chrono::steady_clock::time_point> long_after() const { return std::nullopt; }
    // Called on the watcher's thread (outside its lock), at most once per watch, possibly while the
    // call is returning: what it does must be harmless after the call finished.
    virtual void running_long() noexcept {}
    // Called on the watcher's thread (outside its lock), at most once per watch.
    virtual void expire(Expiry why) noexcept = 0;

    // Stops being watched (the call finished); harmless when the watcher already let go of it, also
    // after the watcher is gone.
    void stop_watching();

private:
    friend class DeadlineWatcher;
    friend struct WatcherCore;
    static constexpr std::size_t unwatched = static_cast<std::size_t>(-1);
    std::size_t slot_ = unwatched;  // index in the watcher's list, guarded by its mutex
    bool long_reported_ = false;    // running_long() was called; guarded by the watcher's mutex
    // Keeps the watcher's state alive for a plugin returning after the watcher was destroyed.
    std::shared_ptr<WatcherCore> watcher_;
};

class DeadlineWatcher {
public:
    explicit DeadlineWatcher(std::chrono::milliseconds tick = std::chrono::milliseconds(2));
    // Expires every call still watched (Expiry::shutdown) and joins the thread.
    ~DeadlineWatcher();
    DeadlineWatcher(const DeadlineWatcher&) = delete;
    DeadlineWatcher& operator=(const DeadlineWatcher&) = delete;

    // Once the watcher is shutting down, the call expires at once (Expiry::shutdown).
    void watch(const std::shared_ptr<WatchedCall>& call);

private:
    std::shared_ptr<WatcherCore> core_;
    std::thread thread_;
};

}  // namespace skillhost::exec
