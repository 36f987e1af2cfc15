// `skillhost watch`: loads the plugin directories, then prints every catalog change as it happens
// (new, rebuilt, removed and broken plugins) until interrupted. SIGHUP forces a full rescan.
#include "app/storage_schema.hpp"
#include "base/json_text.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "audit/audit_log.hpp"
#include "reload/catalog_change.hpp"
#include "reload/watched_catalog.hpp"

#include <atomic>
#include <csignal>
#include <iostream>
#include <mutex>
#include <thread>

namespace skillhost::cli {
namespace {

std::atomic<bool> g_stop{false};
reload::WatchedCatalog* g_watched = nullptr;  // for the SIGHUP handler only

extern "C" void on_stop_signal(int) {
    g_stop = true;
}
extern "C" void on_hangup(int) {
    if (g_watched) g_watched->request_rescan();
}

int run_watch(CliContext& ctx, bool json) {
    auto cfg = ctx.load_config();
    if (!cfg) return fail_setup(cfg.error(), json);
    auto audit = app::open_audit_log(cfg.value());
    if (!audit) return fail_setup(audit.error(), json);

    reload::WatchedCatalog watched(reload::live_catalog_options(cfg.value()), reload::watcher_options(cfg.value()));
    audit::AuditLog* log = audit.value().get();
    watched.catalog().set_report_sink(
        [log](const reload::ReloadReport& report) { (void)log->append("reload", report.to_json()); });
    std::mutex out_mutex;
    auto subscription = watched.catalog().subscribe([&](const reload::CatalogUpdate& update) {
        // A reload that changed nothing visible (a manifest restored byte for byte, a library
        // reinstalled unchanged) is not news for an author.
        if (update.change.empty()) return;
        std::lock_guard lock(out_mutex);
        if (json)
            std::cout << compact_json(reload::change_to_json(update.change)) << std::endl;
        else
            std::cout << reload::format_change_line(update.change) << std::endl;
    });

    g_watched = &watched;
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    std::signal(SIGHUP, on_hangup);
    if (auto st = watched.start(); !st) {
        g_watched = nullptr;
        return fail_setup(st.error(), json);
    }
    if (!json) {
        std::lock_guard lock(out_mutex);
        std::cerr << "watching";
        for (const auto& d : cfg->plugin_dirs) std::cerr << " " << d.string();
        std::cerr << " (Ctrl-C to stop, SIGHUP to rescan)" << std::endl;
    }
    while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    watched.stop();
    g_watched = nullptr;
    return kExitOk;
}

}  // namespace

void register_watch_command(CLI::App& app, CliContext& ctx) {
    auto json = std::make_shared<bool>(false);
    auto* watch = app.add_subcommand(
        "watch", "Watch the plugin directories and print catalog changes as they happen (a plugin author's companion)");
    watch->add_flag("--json", *json, "One JSON object per change");
    ctx.add_global_options(*watch);
    watch->footer("Install a plugin safely: copy it to a temporary name in the directory, then rename it into place.");
    watch->callback([&ctx, json] { ctx.exit_code = run_watch(ctx, *json); });
}

}  // namespace skillhost::cli
