// A LiveCatalog kept current by a PluginWatcher: what the daemon serves from and what
// `skillhost watch` runs. Owns both and stops the watcher before the catalog goes away.
#pragma once

#include "base/error.hpp"
#include "config/host_config.hpp"
#include "reload/live_catalog.hpp"
#include "reload/plugin_watcher.hpp"

#include <memory>

namespace skillhost::reload {

// The catalog options a host configuration implies: its plugin directories, private library copies
// under <home>/plugin-cache.
LiveCatalogOptions live_catalog_options(const config::HostConfig& config);
// The configured debounce (reload_debounce).
WatcherOptions watcher_options(const config::HostConfig& config);

class WatchedCatalog {
public:
    WatchedCatalog(LiveCatalogOptions catalog_options, WatcherOptions watcher_options);
    ~WatchedCatalog();

    // Loads every plugin and starts watching. Subscribe before start() to see the initial load as
    // a change too (as `skillhost watch` does). Errors as PluginWatcher::start(); the catalog is
    // loaded even when watching fails.
    Status start();
    void stop();

    LiveCatalog& catalog() { return *catalog_; }
    PluginWatcher& watcher() { return *watcher_; }
    // For SIGHUP: async-signal-safe.
    void request_rescan() noexcept { watcher_->request_rescan(); }

private:
    std::unique_ptr<LiveCatalog> catalog_;
    std::unique_ptr<PluginWatcher> watcher_;
};

}  // namespace skillhost::reload
