// Keeps a LiveCatalog current: watches the plugin directories with inotify, groups events by plugin
// unit (a manifest and its library), debounces them, and asks the catalog to rebuild only the units
// that changed.
#pragma once

#include "base/error.hpp"
#include "reload/debounce_schedule.hpp"
#include "reload/directory_watch_set.hpp"
#include "reload/live_catalog.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

namespace skillhost::reload {

struct WatcherOptions {
    // A unit is rebuilt once its files were quiet this long (an installer writing several files,
    // or a linker rewriting a library, causes one rebuild).
    std::chrono::milliseconds debounce{100};
    // ... or at the latest this long after its first event, so constant rewriting still reloads.
    std::chrono::milliseconds max_wait{1000};
};

class PluginWatcher {
public:
    // `catalog` must outlive the watcher (stop the watcher first).
    explicit PluginWatcher(LiveCatalog& catalog, WatcherOptions options = {});
    ~PluginWatcher();
    PluginWatcher(const PluginWatcher&) = delete;
    PluginWatcher& operator=(const PluginWatcher&) = delete;

    // Watches the catalog's plugin directories (and, while one is missing, its nearest existing
    // ancestor), rescans so the catalog is current when this returns, then starts the watching
    // thread. Errors: WATCHER_START_FAILED (no inotify/eventfd), WATCH_FAILED (e.g. watch limit),
    // WATCHER_ALREADY_STARTED.
    Status start();

    // Stops the thread promptly (an eventfd wakes its poll); waits for a rebuild in progress.
    // Idempotent; the destructor calls it.
    void stop();

    // Asks for a full rescan as soon as possible. Async-signal-safe (an atomic store and a write()
    // to an eventfd), so a SIGHUP handler may call it. Does nothing before start().
    void request_rescan() noexcept;

    bool running() const { return thread_.joinable() && !stop_requested_.load(); }

private:
    void run();
    void drain_inotify();
    void handle_event(int wd, std::uint32_t mask, std::string_view name);
    void on_file_event(const std::filesystem::path& dir, std::string_view name);
    void attach_missing_directories();
    void run_due_rebuilds();
    void refresh_units();

    LiveCatalog& catalog_;
    WatcherOptions options_;
    int inotify_fd_ = -1;
    int wake_fd_ = -1;  // eventfd: stop() and request_rescan() write to it
    std::atomic<bool> stop_requested_{false};
    std::atomic<bool> rescan_requested_{false};
    std::thread thread_;

    // Only touched by the watching thread (and by start() before it runs).
    std::unique_ptr<DirectoryWatchSet> watches_;
    DebounceSchedule schedule_;
    std::map<std::filesystem::path, std::vector<std::filesystem::path>> units_by_library_;
};

}  // namespace skillhost::reload
