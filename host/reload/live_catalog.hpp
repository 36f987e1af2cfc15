// The catalog a running host serves from: the current immutable CatalogSnapshot, replaced
// atomically whenever plugin files change. Rebuilds happen on the side, reuse every plugin that did
// not change, and never replace a working plugin with a broken one.
#pragma once

#include "base/error.hpp"
#include "base/owned_threads.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "plugin/plugin_loader.hpp"
#include "reload/catalog_change.hpp"
#include "reload/file_identity.hpp"
#include "reload/relist_schedule.hpp"
#include "reload/reload_report.hpp"
#include "reload/subscription.hpp"
#include "reload/error_codes.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace skillhost::reload {

struct LiveCatalogOptions {
    // Each holds manifests (*.yaml, *.yml) and the libraries they name. Earlier directories win a
    // duplicate skill id.
    std::vector<std::filesystem::path> plugin_dirs;
    plugin::LoaderOptions loader;
    // Optional: receives a report of every rebuild that changed the catalog (the audit log).
    ReloadReportSink on_report;
    // true (the daemon): a foreign MCP server's declaration is started on a thread of its own, and
    // the catalog is rebuilt without waiting for it (the rest of the catalog serves meanwhile); its
    // tools join the catalog in the rebuild that follows its start (or its failure is reported
    // then). false (one-shot commands, `skillhost mcp`): rebuilds wait for it, so what they list is
    // complete.
    bool start_servers_in_background = false;
};

// A plugin unit: one manifest and the library it names (for a foreign server's declaration with
// `package:`, the install's record file in packages_dir). The watcher maps file events in the
// library's directory to units through this.
struct UnitFiles {
    std::filesystem::path manifest_file;
    std::filesystem::path library_file;  // empty while the manifest cannot be read, or names none
};

// Code of the failure recorded when a new version of a loaded plugin cannot be loaded; its
// details.cause is the loader's (or manifest parser's) error.
inline constexpr std::string_view kReloadFailedKeepingPrevious = errors::kReloadFailedKeepingPrevious.name;

struct BackgroundStart;  // live_catalog.cpp: a foreign server starting on a thread of the catalog's

class LiveCatalog {
public:
    // Starts with an empty snapshot (version 0); call rescan() (or start a PluginWatcher) to load.
    explicit LiveCatalog(LiveCatalogOptions options);
    ~LiveCatalog();
    LiveCatalog(const LiveCatalog&) = delete;
    LiveCatalog& operator=(const LiveCatalog&) = delete;

    // The current snapshot; never null. Lock-free with respect to rebuilds (a rebuild loading a
    // slow plugin never blocks readers). Hold the pointer for the duration of a call: it keeps the
    // plugins of that snapshot loaded.
    std::shared_ptr<const catalog::CatalogSnapshot> snapshot() const;
    std::uint64_t version() const;

    // The configured directories, absolute and normalised (as units are keyed).
    const std::vector<std::filesystem::path>& plugin_dirs() const { return plugin_dirs_; }

    // Looks at every manifest in every directory, (re)loads the units whose manifest or library
    // changed since they were last looked at, drops units whose manifest is gone, and swaps in a
    // new snapshot if anything changed. Unchanged plugins are reused as they are.
    ReloadReport rescan();

    // The same for one unit, keyed by its manifest path (need not exist any more: then the unit is
    // removed). Error UNIT_OUTSIDE_PLUGIN_DIRS when the manifest is not directly inside a
    // configured directory.
    Result<ReloadReport> reload_unit(const std::filesystem::path& manifest_file);

    // `callback` runs after every swap, outside the catalog's locks, in version order, on the
    // thread that did the rebuild (or another rebuilding thread, when two rebuild at once). It may
    // call snapshot(), subscribe, unsubscribe, even trigger a rebuild (delivered after it returns).
    Subscription subscribe(CatalogSubscriber callback);

    // Replaces the report sink given in the options (e.g. once the audit log is open).
    void set_report_sink(ReloadReportSink sink);

    // Every unit known from the last rebuild, including failed ones.
    std::vector<UnitFiles> units() const;

    // Normalises a path the way unit keys are: absolute, lexically normal, no trailing separator.
    static std::filesystem::path normalize(const std::filesystem::path& path);

private:
    struct UnitState {
        std::filesystem::path manifest_file;
        bool evaluated = false;
        std::optional<FileIdentity> manifest_identity;
        std::uint64_t manifest_hash = 0;
        std::filesystem::path library_file;
        std::optional<FileIdentity> library_identity;
        std::shared_ptr<plugin::LoadedPlugin> serving;  // the version in the catalog, if any
        std::optional<plugin::PluginFailure> failure;   // why the last attempt failed, if it did
        // A foreign server being started in the background (start_servers_in_background).
        std::shared_ptr<BackgroundStart> starting;
    };
    using UnitKey = std::pair<std::size_t, std::filesystem::path>;  // (directory index, manifest file)

    struct PendingNotification {
        CatalogUpdate update;
        ReloadReport report;
    };

    std::optional<std::size_t> directory_index(const std::filesystem::path& manifest_file) const;
    std::optional<UnitReport> evaluate_unit(UnitState& unit);
    // The report of a load that ended (success or failure), applied to `unit`.
    UnitReport loaded_report(UnitState& unit, Result<std::shared_ptr<plugin::LoadedPlugin>> loaded,
                             const std::string& plugin_name, std::optional<std::uint64_t> library_hash,
                             std::chrono::microseconds load_time, const manifest::Manifest* parsed);
    // Starts `server` on a thread of this catalog's; a rescan takes the outcome when it is there.
    void start_in_background(UnitState& unit, const manifest::ForeignServer& server);
    // Takes a plugin its supervisor quarantined out of the catalog (it stays out until its files
    // change, i.e. a new version is installed).
    std::optional<UnitReport> quarantine_unit(UnitState& unit);
    UnitReport record_failure(UnitState& unit, Error error, const std::string& plugin_name);
    UnitReport removal_report(const UnitState& unit) const;
    void refresh_directory_failures(std::vector<UnitReport>& reports);
    // Swaps in a snapshot of units_ and queues the notification; caller holds rebuild_mutex_.
    void publish(ReloadReport& report, std::chrono::steady_clock::time_point started);
    void deliver_pending();

    // Lets a quarantine (reported from another thread) trigger a rescan while this catalog lives.
    struct QuarantineInbox {
        std::mutex mutex;
        LiveCatalog* catalog = nullptr;
    };
    static plugin::LoaderOptions with_quarantine_inbox(plugin::LoaderOptions options,
                                                       const std::shared_ptr<QuarantineInbox>& inbox);
    // rescan() on a thread of this catalog's (a quarantine is reported on the runner's reader thread,
    // which the rescan may have to join).
    void rescan_soon();
    // A foreign server said its tools changed: the plugin serving it lists them again
    // (LoadedPlugin::relisted(), outside the catalog's locks), and a new version it makes is
    // published as any rebuild is (trigger "list_changed"). Runs on relisting_'s threads.
    void relist(const std::string& plugin_name);

    const std::shared_ptr<QuarantineInbox> quarantine_inbox_ = std::make_shared<QuarantineInbox>();
    const std::vector<std::filesystem::path> plugin_dirs_;
    const plugin::PluginLoader loader_;

    mutable std::mutex rebuild_mutex_;  // serialises rebuilds; guards units_ and missing_dirs_
    std::map<UnitKey, UnitState> units_;
    // A hash of the library bytes each serving plugin was loaded from, so a reload of identical
    // files is not reported as a change. Entries for plugins no longer in the catalog are dropped.
    std::map<const plugin::LoadedPlugin*, std::uint64_t> code_hashes_;
    std::vector<plugin::PluginFailure> directory_failures_;

    std::atomic<std::shared_ptr<const catalog::CatalogSnapshot>> current_;

    std::shared_ptr<SubscriberList> subscribers_;
    std::mutex sink_mutex_;
    ReloadReportSink report_sink_;

    std::mutex delivery_mutex_;  // guards pending_ and delivering_
    std::deque<PendingNotification> pending_;
    bool delivering_ = false;

    const bool start_servers_in_background_;
    // Listings of foreign servers that said their tools changed (relist()); stopped first.
    RelistSchedule relisting_;
    OwnedThreads quarantine_rescans_;  // last: its threads use everything above; joined first
};

}  // namespace skillhost::reload
