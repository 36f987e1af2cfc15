#include "reload/watched_catalog.hpp"

#include "plugin/isolation_config.hpp"

namespace skillhost::reload {

LiveCatalogOptions live_catalog_options(const config::HostConfig& config) {
    LiveCatalogOptions options;
    options.plugin_dirs = config.plugin_dirs;
    options.loader.cache_dir = config.plugin_cache_dir();
    options.loader.isolation = plugin::isolation_options(config);
    options.loader.packages_dir = config.packages_dir;
    return options;
}

WatcherOptions watcher_options(const config::HostConfig& config) {
    WatcherOptions options;
    options.debounce = config.reload_debounce;
    options.max_wait = std::max(options.max_wait, config.reload_debounce * 10);
    return options;
}

WatchedCatalog::WatchedCatalog(LiveCatalogOptions catalog_options, WatcherOptions watcher_options)
    : catalog_(std::make_unique<LiveCatalog>(std::move(catalog_options))),
      watcher_(std::make_unique<PluginWatcher>(*catalog_, watcher_options)) {}

WatchedCatalog::~WatchedCatalog() {
    stop();
}

Status WatchedCatalog::start() {
    auto status = watcher_->start();
    if (!status) catalog_->rescan();  // serve what is there even if changes cannot be watched
    return status;
}

void WatchedCatalog::stop() {
    watcher_->stop();
}

}  // namespace skillhost::reload
