#include "reload/live_catalog.hpp"
#include "manifest/error_codes.hpp"
#include "plugin/error_codes.hpp"
#include "reload/error_codes.hpp"

#include "manifest/foreign_server.hpp"
#include "manifest/manifest.hpp"
#include "plugin/foreign_package.hpp"
#include "reload/plugin_file_names.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <variant>

namespace skillhost::reload {

namespace {

using Clock = std::chrono::steady_clock;

// A foreign server is listed again at most this often, however often it says its tools changed.
constexpr std::chrono::milliseconds kRelistGap{1000};

std::chrono::microseconds since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
}

std::optional<std::string> read_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return std::move(bytes).str();
}

Error keeping_previous(const Error& cause, const plugin::LoadedPlugin& serving, const std::filesystem::path& manifest) {
    Error error{errors::kReloadFailedKeepingPrevious, ""};
    const std::string name = serving.manifest().name;
    const std::string version(serving.version());
    error.message = "the new version of plugin '" + name + "' (" + manifest.string() +
                    ") could not be loaded, so version " + version + " keeps serving: " + cause.code + ": " +
                    cause.message;
    error.details["manifest"] = manifest.string();
    error.details["plugin"] = name;
    error.details["serving_version"] = version;
    error.details["serving_library"] = serving.loaded_from().string();
    error.details["cause"] = cause.to_json();
    error.suggestions = cause.suggestions;
    error.suggestions.push_back("Run `skillhost plugin check " + manifest.string() +
                                "` to see every problem with the new version.");
    error.suggestions.push_back(
        "Install the fixed plugin by copying it to a temporary name in the same directory, then renaming it "
        "into place; the host picks it up on its own.");
    return error;
}

Error directory_not_found(const std::filesystem::path& dir) {
    Error error;
    error.recode(errors::kDirNotFound);
    error.message = "plugin directory " + dir.string() +
                    " does not exist; create it or fix plugin_dirs in skillhost.yaml (it is watched and loaded "
                    "as soon as it appears)";
    error.details["directory"] = dir.string();
    return error;
}

// Loads one declaration; an exception (only resource exhaustion gets here) becomes an error, so it
// cannot take the previous version down with it.
Result<std::shared_ptr<plugin::LoadedPlugin>> load_guarded(const plugin::PluginLoader& loader,
                                                           const manifest::PluginDeclaration& declaration,
                                                           const std::filesystem::path& file) {
    try {
        if (const auto* foreign = std::get_if<manifest::ForeignServer>(&declaration))
            return loader.load_foreign(*foreign);
        return loader.load(std::get<manifest::Manifest>(declaration));
    } catch (const std::exception& e) {
        Error error{errors::kPluginLoadException,
                    "loading " + file.string() + " failed unexpectedly: " + e.what() + "; retry the reload"};
        error.details["manifest"] = file.string();
        return error;
    }
}

}  // namespace

struct BackgroundStart {
    std::mutex mutex;
    bool done = false;
    Result<std::shared_ptr<plugin::LoadedPlugin>> result = Error{};
    std::string plugin_name;
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    std::optional<FileIdentity> declaration;  // the file it was started from
};

LiveCatalog::LiveCatalog(LiveCatalogOptions options)
    : plugin_dirs_([&] {
          std::vector<std::filesystem::path> dirs;
          for (const auto& dir : options.plugin_dirs) dirs.push_back(normalize(dir));
          return dirs;
      }()),
      loader_(with_quarantine_inbox(std::move(options.loader), quarantine_inbox_)),
      current_(std::make_shared<const catalog::CatalogSnapshot>(0, std::vector<std::shared_ptr<plugin::LoadedPlugin>>{},
                                                                std::vector<plugin::PluginFailure>{})),
      subscribers_(std::make_shared<SubscriberList>()),
      report_sink_(std::move(options.on_report)),
      start_servers_in_background_(options.start_servers_in_background),
      relisting_(kRelistGap, [this](const std::string& plugin_name) { relist(plugin_name); }) {
    std::lock_guard lock(quarantine_inbox_->mutex);
    quarantine_inbox_->catalog = this;
}

LiveCatalog::~LiveCatalog() {
    {
        std::lock_guard lock(quarantine_inbox_->mutex);
        quarantine_inbox_->catalog = nullptr;
    }
    relisting_.stop();
    quarantine_rescans_.join_all();  // none starts any more; those started use this catalog
}

void LiveCatalog::rescan_soon() {
    try {
        quarantine_rescans_.start([this] { rescan(); });
    } catch (const std::system_error& e) {
        spdlog::error(
            "cannot start a thread to rebuild the catalog after a quarantine ({}); the next "
            "change in a plugin directory rebuilds it",
            e.what());
    }
}

plugin::LoaderOptions LiveCatalog::with_quarantine_inbox(plugin::LoaderOptions options,
                                                         const std::shared_ptr<QuarantineInbox>& inbox) {
    auto earlier = std::move(options.isolation.on_quarantine);
    options.isolation.on_quarantine = [inbox, earlier](const std::string& plugin_name) {
        if (earlier) earlier(plugin_name);
        std::lock_guard lock(inbox->mutex);
        if (inbox->catalog) inbox->catalog->rescan_soon();
    };
    auto told = std::move(options.isolation.on_tools_changed);
    options.isolation.on_tools_changed = [inbox, told](const std::string& plugin_name) {
        if (told) told(plugin_name);
        std::lock_guard lock(inbox->mutex);
        if (inbox->catalog) inbox->catalog->relisting_.request(plugin_name);
    };
    return options;
}

void LiveCatalog::relist(const std::string& plugin_name) {
    std::shared_ptr<plugin::LoadedPlugin> serving;
    {
        std::lock_guard lock(rebuild_mutex_);
        for (const auto& [key, unit] : units_) {
            if (unit.serving && unit.serving->manifest().name == plugin_name) {
                serving = unit.serving;
                break;
            }
        }
    }
    if (!serving) return;  // failed, quarantined or gone meanwhile: nothing serves it to list again
    const auto start = Clock::now();
    std::shared_ptr<plugin::LoadedPlugin> next = serving->relisted();
    if (!next) return;
    ReloadReport report;
    report.trigger = "list_changed";
    {
        std::lock_guard lock(rebuild_mutex_);
        report.catalog_version_before = report.catalog_version_after = version();
        UnitState* unit = nullptr;
        for (auto& [key, candidate] : units_)
            if (candidate.serving == serving) unit = &candidate;
        if (unit == nullptr) return;  // reloaded or removed meanwhile: that rebuild stands
        UnitReport relisted;
        relisted.manifest_file = unit->manifest_file;
        relisted.plugin_name = plugin_name;
        relisted.outcome = UnitOutcome::relisted;
        relisted.previous_version = relisted.version = std::string(serving->version());
        // The same code as before: only the skills whose definition changed count as updated.
        const std::uint64_t code = code_hashes_.try_emplace(serving.get(), unit->manifest_hash).first->second;
        code_hashes_[next.get()] = code;
        unit->serving = std::move(next);
        relisted.load_time = since(start);
        report.units.push_back(std::move(relisted));
        spdlog::info("MCP server '{}' listed its tools again after it said they changed", plugin_name);
        report.duration = since(start);
        publish(report, start);
    }
    deliver_pending();
}

std::optional<UnitReport> LiveCatalog::quarantine_unit(UnitState& unit) {
    if (!unit.serving) return std::nullopt;
    std::optional<Error> reason = unit.serving->quarantine();
    if (!reason) return std::nullopt;
    UnitReport report;
    report.manifest_file = unit.manifest_file;
    report.plugin_name = unit.serving->manifest().name;
    report.outcome = UnitOutcome::quarantined;
    report.previous_version = std::string(unit.serving->version());
    reason->details["manifest"] = unit.manifest_file.string();
    report.error = *reason;
    unit.failure = plugin::PluginFailure{unit.manifest_file, report.plugin_name, std::move(*reason)};
    unit.serving.reset();
    spdlog::error("plugin {} quarantined; its skills left the catalog", report.plugin_name);
    return report;
}

std::filesystem::path LiveCatalog::normalize(const std::filesystem::path& path) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    if (ec) absolute = path;
    absolute = absolute.lexically_normal();
    if (!absolute.has_filename() && absolute.has_parent_path() && absolute != absolute.root_path())
        absolute = absolute.parent_path();
    return absolute;
}

std::shared_ptr<const catalog::CatalogSnapshot> LiveCatalog::snapshot() const {
    return current_.load();
}

std::uint64_t LiveCatalog::version() const {
    return current_.load()->version();
}

std::optional<std::size_t> LiveCatalog::directory_index(const std::filesystem::path& manifest_file) const {
    const auto parent = manifest_file.parent_path();
    for (std::size_t i = 0; i < plugin_dirs_.size(); ++i) {
        if (plugin_dirs_[i] == parent) return i;
    }
    return std::nullopt;
}

Subscription LiveCatalog::subscribe(CatalogSubscriber callback) {
    return Subscription(subscribers_, subscribers_->add(std::move(callback)));
}

void LiveCatalog::set_report_sink(ReloadReportSink sink) {
    std::lock_guard lock(sink_mutex_);
    report_sink_ = std::move(sink);
}

std::vector<UnitFiles> LiveCatalog::units() const {
    std::lock_guard lock(rebuild_mutex_);
    std::vector<UnitFiles> out;
    out.reserve(units_.size());
    for (const auto& [key, unit] : units_) out.push_back({unit.manifest_file, unit.library_file});
    return out;
}

UnitReport LiveCatalog::record_failure(UnitState& unit, Error error, const std::string& plugin_name) {
    UnitReport report;
    report.manifest_file = unit.manifest_file;
    report.plugin_name = plugin_name;
    plugin::PluginFailure failure{unit.manifest_file, plugin_name, std::move(error)};
    if (unit.serving) {
        if (failure.plugin_name.empty()) failure.plugin_name = unit.serving->manifest().name;
        report.plugin_name = failure.plugin_name;
        report.outcome = UnitOutcome::failed_keeping_previous;
        report.previous_version = report.version = std::string(unit.serving->version());
        failure.error = keeping_previous(failure.error, *unit.serving, unit.manifest_file);
        spdlog::error("plugin reload failed, previous version keeps serving: {}", failure.error.message);
    } else {
        report.outcome = UnitOutcome::failed;
        spdlog::warn("plugin {} could not be loaded: {}: {}", unit.manifest_file.string(), failure.error.code,
                     failure.error.message);
    }
    report.error = failure.error;
    unit.failure = std::move(failure);
    return report;
}

UnitReport LiveCatalog::removal_report(const UnitState& unit) const {
    UnitReport report;
    report.manifest_file = unit.manifest_file;
    report.outcome = UnitOutcome::removed;
    if (unit.serving) {
        report.plugin_name = unit.serving->manifest().name;
        report.previous_version = std::string(unit.serving->version());
    } else if (unit.failure) {
        report.plugin_name = unit.failure->plugin_name;
    }
    spdlog::info("plugin {} removed ({} is gone)", report.plugin_name.empty() ? "(unloaded)" : report.plugin_name,
                 unit.manifest_file.string());
    return report;
}

// Returns nullopt when the unit is unchanged since it was last evaluated.
std::optional<UnitReport> LiveCatalog::evaluate_unit(UnitState& unit) {
    const auto manifest_identity = identify_file(unit.manifest_file);
    if (unit.starting) {
        const std::shared_ptr<BackgroundStart> start = unit.starting;
        bool done = false;
        {
            std::lock_guard lock(start->mutex);
            done = start->done;
        }
        const bool same_file = manifest_identity == start->declaration;
        if (done) unit.starting.reset();
        // Still starting, or started from a declaration since replaced (the replacement starts below).
        if (same_file && !done) return std::nullopt;
        if (same_file)
            return loaded_report(unit, std::move(start->result), start->plugin_name, std::nullopt,
                                 since(start->started), nullptr);
        unit.starting.reset();  // its outcome, whenever it comes, is for a declaration that is gone
        unit.evaluated = false;
    }
    const auto library_identity = [&] {
        return unit.library_file.empty() ? std::optional<FileIdentity>() : identify_file(unit.library_file);
    };
    if (unit.evaluated && manifest_identity == unit.manifest_identity && library_identity() == unit.library_identity)
        return std::nullopt;

    const auto text = read_file(unit.manifest_file);
    const std::uint64_t hash = text ? content_hash(*text) : 0;
    if (unit.evaluated && text && hash == unit.manifest_hash && library_identity() == unit.library_identity) {
        // Touched or rewritten with the same bytes: nothing to reload.
        unit.manifest_identity = manifest_identity;
        return std::nullopt;
    }

    unit.evaluated = true;
    unit.manifest_identity = manifest_identity;
    unit.manifest_hash = hash;
    unit.library_file.clear();
    unit.library_identity.reset();
    if (!text) {
        Error error;
        error.recode(errors::kManifestUnreadable);
        error.message = "cannot read manifest " + unit.manifest_file.string() +
                        "; check that the file exists and is readable by the host";
        error.details["manifest"] = unit.manifest_file.string();
        return record_failure(unit, std::move(error), {});
    }
    auto declaration = manifest::parse_plugin_declaration(*text, unit.manifest_file);
    if (!declaration) return record_failure(unit, std::move(declaration.error()), {});
    // A native plugin's manifest, or a foreign MCP server's declaration (which names no library).
    const auto* foreign = std::get_if<manifest::ForeignServer>(&declaration.value());
    const auto* parsed = std::get_if<manifest::Manifest>(&declaration.value());
    const std::string plugin_name = foreign != nullptr ? foreign->name : parsed->name;

    std::optional<std::uint64_t> library_hash;
    if (parsed != nullptr) {
        // Identify the library before loading: if it is replaced while we load, the identity we keep
        // is the older one, so the replacement's event triggers another (correct) reload.
        unit.library_file = parsed->library_path();
        unit.library_identity = identify_file(unit.library_file);
        // Hashed before loading: if the file is replaced meanwhile, the next reload sees other bytes
        // and reports a change rather than hiding one.
        const auto library_bytes = read_file(unit.library_file);
        if (library_bytes) library_hash = content_hash(*library_bytes);
    } else if (foreign->package && !loader_.options().packages_dir.empty()) {
        // A declared package's install stands where a library would: its record is written last
        // inside the directory renamed into place, so an install that appears, is replaced or goes
        // (`skillhost plugin install` while the host runs) reloads the declaration.
        unit.library_file = plugin::package_record_file(loader_.options().packages_dir, *foreign->package);
        unit.library_identity = identify_file(unit.library_file);
    }

    if (foreign != nullptr && start_servers_in_background_) {
        start_in_background(unit, *foreign);
        return std::nullopt;  // the catalog changes once it has started (or failed to)
    }
    const auto start = Clock::now();
    Result<std::shared_ptr<plugin::LoadedPlugin>> loaded =
        load_guarded(loader_, declaration.value(), unit.manifest_file);
    return loaded_report(unit, std::move(loaded), plugin_name, library_hash, since(start), parsed);
}

UnitReport LiveCatalog::loaded_report(UnitState& unit, Result<std::shared_ptr<plugin::LoadedPlugin>> loaded,
                                      const std::string& plugin_name, std::optional<std::uint64_t> library_hash,
                                      std::chrono::microseconds load_time, const manifest::Manifest* parsed) {
    if (!loaded) {
        if (parsed != nullptr) plugin::note_declared_skills(loaded.error(), *parsed);
        auto report = record_failure(unit, std::move(loaded.error()), plugin_name);
        report.load_time = load_time;
        return report;
    }

    UnitReport report;
    report.manifest_file = unit.manifest_file;
    report.plugin_name = plugin_name;
    report.outcome = unit.serving ? UnitOutcome::updated : UnitOutcome::loaded;
    if (unit.serving) report.previous_version = std::string(unit.serving->version());
    unit.serving = std::move(loaded.value());
    unit.failure.reset();
    if (library_hash) code_hashes_[unit.serving.get()] = *library_hash;
    report.version = std::string(unit.serving->version());
    report.load_time = load_time;
    if (report.outcome == UnitOutcome::updated) {
        spdlog::info("plugin {} updated {} -> {} ({})", report.plugin_name, report.previous_version, report.version,
                     unit.manifest_file.string());
    } else {
        spdlog::info("plugin {} {} loaded ({})", report.plugin_name, report.version, unit.manifest_file.string());
    }
    return report;
}

void LiveCatalog::start_in_background(UnitState& unit, const manifest::ForeignServer& server) {
    auto start = std::make_shared<BackgroundStart>();
    start->plugin_name = server.name;
    start->declaration = unit.manifest_identity;
    unit.starting = start;
    spdlog::info("MCP server '{}' is starting ({}); its tools join the catalog once it has listed them", server.name,
                 unit.manifest_file.string());
    try {
        quarantine_rescans_.start([this, start, server, file = unit.manifest_file] {
            auto loaded = load_guarded(loader_, manifest::PluginDeclaration(server), file);
            {
                std::lock_guard lock(start->mutex);
                start->result = std::move(loaded);
                start->done = true;
            }
            {
                std::lock_guard lock(quarantine_inbox_->mutex);
                if (quarantine_inbox_->catalog == nullptr) return;  // the catalog is closing
            }
            rescan();
        });
    } catch (const std::system_error& e) {
        std::lock_guard lock(start->mutex);
        start->result =
            Error{errors::kPluginLoadException, "cannot start a thread to start MCP server '" + server.name + "' (" +
                                                    e.what() + "); touch its declaration to try again"};
        start->done = true;
    }
}

void LiveCatalog::refresh_directory_failures(std::vector<UnitReport>& reports) {
    std::vector<plugin::PluginFailure> failures;
    for (const auto& dir : plugin_dirs_) {
        std::error_code ec;
        if (std::filesystem::is_directory(dir, ec)) continue;
        failures.push_back({dir, {}, directory_not_found(dir)});
    }
    for (const auto& failure : failures) {
        bool known = false;
        for (const auto& old : directory_failures_) known = known || old.manifest_file == failure.manifest_file;
        if (known) continue;
        spdlog::warn("{}", failure.error.message);
        UnitReport report;
        report.manifest_file = failure.manifest_file;
        report.outcome = UnitOutcome::directory_missing;
        report.error = failure.error;
        reports.push_back(std::move(report));
    }
    directory_failures_ = std::move(failures);
}

ReloadReport LiveCatalog::rescan() {
    const auto start = Clock::now();
    ReloadReport report;
    report.trigger = "rescan";
    {
        std::lock_guard lock(rebuild_mutex_);
        report.catalog_version_before = report.catalog_version_after = version();
        std::vector<std::filesystem::path> missing_before;
        for (const auto& failure : directory_failures_) missing_before.push_back(failure.manifest_file);
        refresh_directory_failures(report.units);
        std::vector<std::filesystem::path> missing_after;
        for (const auto& failure : directory_failures_) missing_after.push_back(failure.manifest_file);
        const bool directories_changed = missing_before != missing_after;

        std::set<UnitKey> seen;
        for (std::size_t i = 0; i < plugin_dirs_.size(); ++i) {
            for (const auto& file : list_manifests(plugin_dirs_[i])) {
                UnitKey key{i, normalize(file)};
                seen.insert(key);
                auto [it, inserted] = units_.try_emplace(key);
                if (inserted) it->second.manifest_file = key.second;
                if (auto unit_report = evaluate_unit(it->second)) report.units.push_back(std::move(*unit_report));
                if (auto quarantined = quarantine_unit(it->second)) report.units.push_back(std::move(*quarantined));
            }
        }
        for (auto it = units_.begin(); it != units_.end();) {
            if (seen.count(it->first)) {
                ++it;
                continue;
            }
            report.units.push_back(removal_report(it->second));
            it = units_.erase(it);
        }
        report.duration = since(start);
        if (!report.units.empty() || directories_changed) publish(report, start);
    }
    deliver_pending();
    return report;
}

Result<ReloadReport> LiveCatalog::reload_unit(const std::filesystem::path& manifest_file) {
    const auto start = Clock::now();
    const auto file = normalize(manifest_file);
    const auto dir = directory_index(file);
    if (!dir || !is_manifest_name(file.filename().string())) {
        Error error;
        error.recode(errors::kUnitOutsidePluginDirs);
        error.message = file.string() +
                        " is not a manifest (*.yaml, *.yml) directly inside a configured plugin directory; "
                        "add its directory to plugin_dirs in skillhost.yaml or move it into one";
        error.details["manifest"] = file.string();
        boost::json::array dirs;
        for (const auto& d : plugin_dirs_) dirs.emplace_back(d.string());
        error.details["plugin_dirs"] = std::move(dirs);
        return error;
    }
    ReloadReport report;
    report.trigger = "unit";
    {
        std::lock_guard lock(rebuild_mutex_);
        report.catalog_version_before = report.catalog_version_after = version();
        const UnitKey key{*dir, file};
        std::error_code ec;
        const bool present = std::filesystem::is_regular_file(file, ec);
        auto it = units_.find(key);
        if (!present) {
            if (it != units_.end()) {
                report.units.push_back(removal_report(it->second));
                units_.erase(it);
            }
        } else {
            if (it == units_.end()) {
                it = units_.try_emplace(key).first;
                it->second.manifest_file = file;
            }
            if (auto unit_report = evaluate_unit(it->second)) report.units.push_back(std::move(*unit_report));
        }
        report.duration = since(start);
        if (!report.units.empty()) publish(report, start);
    }
    deliver_pending();
    return report;
}

void LiveCatalog::publish(ReloadReport& report, Clock::time_point started) {
    std::vector<std::shared_ptr<plugin::LoadedPlugin>> plugins;
    std::vector<plugin::PluginFailure> failures = directory_failures_;
    std::map<std::string, std::filesystem::path> serving_names;
    for (const auto& [key, unit] : units_) {
        if (unit.failure) failures.push_back(*unit.failure);
        if (!unit.serving) continue;
        // As at discovery: the first manifest (directory order, then file name) keeps a plugin name.
        // The later one stays loaded on the side and takes over if the first goes away.
        const std::string& name = unit.serving->manifest().name;
        auto [taken, inserted] = serving_names.emplace(name, unit.manifest_file);
        if (inserted) {
            plugins.push_back(unit.serving);
            continue;
        }
        Error error{errors::kDuplicatePlugin, "plugin '" + name + "' in " + unit.manifest_file.string() +
                                                  " has the same name as the plugin loaded from " +
                                                  taken->second.string() + "; remove one of them or rename it"};
        error.details["manifest"] = unit.manifest_file.string();
        error.details["plugin"] = name;
        error.details["loaded_from_manifest"] = taken->second.string();
        failures.push_back({unit.manifest_file, name, std::move(error)});
    }
    auto old_snapshot = current_.load();
    auto new_snapshot = std::make_shared<const catalog::CatalogSnapshot>(old_snapshot->version() + 1,
                                                                         std::move(plugins), std::move(failures));
    current_.store(new_snapshot);

    report.catalog_version_after = new_snapshot->version();
    const CodeIdentity code_identity = [this](const plugin::LoadedPlugin& p) -> std::optional<std::uint64_t> {
        auto it = code_hashes_.find(&p);
        return it == code_hashes_.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
    };
    PendingNotification pending{
        {old_snapshot, new_snapshot, compute_change(*old_snapshot, *new_snapshot, code_identity)}, report};
    // Only plugins a later snapshot can still be compared with need their hash (a freed plugin's
    // address may be reused by a new one, whose load then overwrites the entry anyway).
    std::set<const plugin::LoadedPlugin*> serving;
    for (const auto& [key, unit] : units_)
        if (unit.serving) serving.insert(unit.serving.get());
    for (auto it = code_hashes_.begin(); it != code_hashes_.end();)
        it = serving.count(it->first) ? std::next(it) : code_hashes_.erase(it);
    pending.update.change.trigger = report.trigger;
    // Units that were re-evaluated but whose visible state did not change (e.g. a failed plugin that
    // failed again the same way) still count as touched by this rebuild.
    for (const auto& unit : report.units) {
        if (!pending.update.change.touches_unit(unit.manifest_file))
            pending.update.change.units.push_back(unit.manifest_file);
    }
    spdlog::info("{}", format_change_line(pending.update.change));
    report.duration = pending.report.duration = since(started);

    std::lock_guard lock(delivery_mutex_);
    pending_.push_back(std::move(pending));
}

void LiveCatalog::deliver_pending() {
    {
        std::lock_guard lock(delivery_mutex_);
        if (delivering_) return;  // the delivering thread picks up what we queued, in order
        delivering_ = true;
    }
    for (;;) {
        PendingNotification next;
        {
            std::lock_guard lock(delivery_mutex_);
            if (pending_.empty()) {
                delivering_ = false;
                return;
            }
            next = std::move(pending_.front());
            pending_.pop_front();
        }
        ReloadReportSink sink;
        {
            std::lock_guard lock(sink_mutex_);
            sink = report_sink_;
        }
        if (sink) {
            try {
                sink(next.report);
            } catch (const std::exception& e) {
                spdlog::error("reload report sink failed for catalog v{}: {}", next.report.catalog_version_after,
                              e.what());
            }
        }
        subscribers_->notify(next.update);
    }
}

}  // namespace skillhost::reload
