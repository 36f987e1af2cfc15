// Hot-reload benchmark (issue 5):
//  1. reload latency: from the rename of a new plugin into the watched directory to the catalog
//     containing its skill (seen by a subscriber), median and p99, with 1 and with 200 plugins
//     already installed. Target: median within the debounce interval + 20 ms.
//  2. calls during continuous reloads: a client calls a skill through the Executor in a loop while
//     the plugin's library is replaced every 50 ms. Target: zero failed calls.
//
//   skillhost_bench_reload [--samples=N] [--debounce-ms=MS] [--continuous-seconds=S]
//                          [--replace-every-ms=MS] [--continuous-debounce-ms=MS] [--verbose]
// Defaults are short (a quick run); the numbers in docs/performance.md used --continuous-seconds=30.
#include "generated_plugins.hpp"

#include "exec/executor.hpp"
#include "reload/live_catalog.hpp"
#include "reload/plugin_watcher.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
using skillhost::reload::CatalogUpdate;
using skillhost::reload::LiveCatalog;
using skillhost::reload::LiveCatalogOptions;
using skillhost::reload::PluginWatcher;
using skillhost::reload::WatcherOptions;

struct Options {
    int samples = 40;
    int debounce_ms = 100;
    double continuous_seconds = 3;
    int replace_every_ms = 50;
    int continuous_debounce_ms = 20;
    bool verbose = false;
};

Options parse_options(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto eq = arg.find('=');
        const std::string key = arg.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
        if (key == "--samples")
            options.samples = std::stoi(value);
        else if (key == "--debounce-ms")
            options.debounce_ms = std::stoi(value);
        else if (key == "--continuous-seconds")
            options.continuous_seconds = std::stod(value);
        else if (key == "--replace-every-ms")
            options.replace_every_ms = std::stoi(value);
        else if (key == "--continuous-debounce-ms")
            options.continuous_debounce_ms = std::stoi(value);
        else if (key == "--verbose")
            options.verbose = true;
        else {
            std::fprintf(stderr,
                         "unknown option %s\nusage: %s [--samples=N] [--debounce-ms=MS] [--continuous-seconds=S] "
                         "[--replace-every-ms=MS] [--continuous-debounce-ms=MS] [--verbose]\n",
                         arg.c_str(), argv[0]);
            std::exit(2);
        }
    }
    return options;
}

double ms(Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

double percentile(std::vector<double> values, double p) {
    std::sort(values.begin(), values.end());
    const auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
    return values[std::min(index, values.size() - 1)];
}

std::string manifest_text(const std::string& name) {
    return "name: " + name + "\nversion: \"1.0.0\"\ndescription: Plugin installed during the reload benchmark.\n" +
           "library: lib" + name + ".so\nabi_version: \"1.0\"\nskills:\n  - id: " + name +
           "_op\n    title: Operation\n    description: Does nothing.\n    category: bench\n    inputs:\n"
           "      type: object\n";
}

void write_text(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + file.string());
}

// Waits, via a catalog subscription, for a skill to appear in (or leave) the catalog.
class SkillArrival {
public:
    explicit SkillArrival(LiveCatalog& catalog)
        : subscription_(catalog.subscribe([this](const CatalogUpdate& update) {
              std::lock_guard lock(mutex_);
              if (awaited_.empty() || seen_at_) return;
              if ((update.new_snapshot->find(awaited_) != nullptr) == want_present_) {
                  seen_at_ = Clock::now();
                  changed_.notify_all();
              }
          })) {}

    void expect(const std::string& skill, bool present) {
        std::lock_guard lock(mutex_);
        awaited_ = skill;
        want_present_ = present;
        seen_at_.reset();
    }
    std::optional<Clock::time_point> wait(std::chrono::milliseconds timeout) {
        std::unique_lock lock(mutex_);
        changed_.wait_for(lock, timeout, [&] { return seen_at_.has_value(); });
        return seen_at_;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::string awaited_;
    bool want_present_ = true;
    std::optional<Clock::time_point> seen_at_;
    skillhost::reload::Subscription subscription_;
};

struct LatencyResult {
    int installed = 0;
    std::vector<double> samples_ms;
    std::vector<double> rename_ms;   // the two rename() calls themselves
    std::vector<double> rebuild_ms;  // LiveCatalog's work for the new unit (load, new snapshot, swap)
    int timeouts = 0;
};

LatencyResult measure_latency(int installed, const Options& options) {
    skillhost::bench::ScratchDir scratch("skillhost-bench-reload");
    const fs::path dir = skillhost::bench::generate_plugins(scratch.path() / "plugins", installed);
    LiveCatalogOptions catalog_options;
    catalog_options.plugin_dirs = {dir};
    catalog_options.loader.cache_dir = scratch.path() / "cache";
    LatencyResult result;
    std::mutex rebuilds_mutex;
    catalog_options.on_report = [&](const skillhost::reload::ReloadReport& report) {
        for (const auto& unit : report.units) {
            if (unit.outcome != skillhost::reload::UnitOutcome::loaded) continue;
            std::lock_guard lock(rebuilds_mutex);
            result.rebuild_ms.push_back(std::chrono::duration<double, std::milli>(report.duration).count());
        }
    };
    LiveCatalog catalog(catalog_options);
    WatcherOptions watcher_options;
    watcher_options.debounce = std::chrono::milliseconds(options.debounce_ms);
    PluginWatcher watcher(catalog, watcher_options);
    if (auto status = watcher.start(); !status) throw std::runtime_error(status.error().message);
    if (catalog.snapshot()->plugins().size() != static_cast<std::size_t>(installed))
        throw std::runtime_error("expected " + std::to_string(installed) + " plugins, the catalog has " +
                                 std::to_string(catalog.snapshot()->plugins().size()));

    SkillArrival arrival(catalog);
    {
        std::lock_guard lock(rebuilds_mutex);
        result.rebuild_ms.clear();  // the initial load of the installed plugins is not a sample
    }
    result.installed = installed;
    for (int i = 0; i < options.samples; ++i) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "reload_%03d", i);
        const std::string name = buffer;
        const std::string skill = name + "_op";
        // Prepared under temporary names (ignored by the watcher); the clock starts at the rename.
        fs::copy_file(SKILLHOST_BENCH_PLUGIN_LIBRARY, dir / (".lib" + name + ".so.tmp"));
        write_text(dir / ("." + name + ".yaml.tmp"), manifest_text(name));
        arrival.expect(skill, true);
        const auto renamed_at = Clock::now();
        fs::rename(dir / (".lib" + name + ".so.tmp"), dir / ("lib" + name + ".so"));
        fs::rename(dir / ("." + name + ".yaml.tmp"), dir / (name + ".yaml"));
        result.rename_ms.push_back(ms(Clock::now() - renamed_at));
        if (auto seen = arrival.wait(10s)) {
            result.samples_ms.push_back(ms(*seen - renamed_at));
            spdlog::debug("sample {}: {:.1f} ms", name, result.samples_ms.back());
        } else {
            ++result.timeouts;
        }

        // Uninstall before the next sample so the directory keeps `installed` plugins.
        arrival.expect(skill, false);
        fs::remove(dir / (name + ".yaml"));
        fs::remove(dir / ("lib" + name + ".so"));
        if (!arrival.wait(10s)) ++result.timeouts;
    }
    watcher.stop();
    std::lock_guard lock(rebuilds_mutex);
    return result;
}

fs::path fixture_library(const char* fixture) {
    return fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / fixture / "libecho.so";
}

struct ContinuousResult {
    std::uint64_t calls = 0;
    std::uint64_t failed = 0;
    std::map<std::int64_t, std::uint64_t> answers_by_version;
    int replacements = 0;
    std::uint64_t catalog_versions = 0;
    std::string first_failure;
};

ContinuousResult measure_continuous(const Options& options) {
    if (!fs::exists(fixture_library("echo")) || !fs::exists(fixture_library("echo_v2")))
        throw std::runtime_error("the echo fixtures are missing; build skillhost_test_fixtures (tests enabled)");
    skillhost::bench::ScratchDir scratch("skillhost-bench-reload-calls");
    const fs::path dir = scratch.path() / "plugins";
    fs::create_directories(dir);
    fs::copy_file(fixture_library("echo"), dir / "libecho.so");
    fs::copy_file(fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo" / "echo.yaml", dir / "echo.yaml");

    LiveCatalogOptions catalog_options;
    catalog_options.plugin_dirs = {dir};
    catalog_options.loader.cache_dir = scratch.path() / "cache";
    LiveCatalog catalog(catalog_options);
    WatcherOptions watcher_options;
    watcher_options.debounce = std::chrono::milliseconds(options.continuous_debounce_ms);
    PluginWatcher watcher(catalog, watcher_options);
    if (auto status = watcher.start(); !status) throw std::runtime_error(status.error().message);
    const auto first_version = catalog.version();

    skillhost::exec::Executor executor;
    skillhost::plugin::Call caller;
    skillhost::exec::CallOptions call_options;
    call_options.users_dir = scratch.path() / "users";
    ContinuousResult result;
    std::atomic<bool> done{false};
    std::thread client([&] {
        const boost::json::value args = boost::json::object{};
        while (!done.load()) {
            const auto snapshot = catalog.snapshot();  // what a server does per request
            const auto call = executor.call(*snapshot, "version", args, caller, call_options);
            ++result.calls;
            if (!call.ok) {
                if (result.failed++ == 0) result.first_failure = call.error.code + ": " + call.error.message;
                continue;
            }
            ++result.answers_by_version[call.output.at("version").to_number<std::int64_t>()];
        }
    });

    const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(options.continuous_seconds));
    auto next = Clock::now();
    while (Clock::now() < end) {
        const char* fixture = result.replacements % 2 == 0 ? "echo_v2" : "echo";
        fs::copy_file(fixture_library(fixture), dir / ".libecho.so.tmp", fs::copy_options::overwrite_existing);
        fs::rename(dir / ".libecho.so.tmp", dir / "libecho.so");
        ++result.replacements;
        next += std::chrono::milliseconds(options.replace_every_ms);
        std::this_thread::sleep_until(next);
    }
    done = true;
    client.join();
    // Let the last replacement land so the version count is complete.
    std::this_thread::sleep_for(std::chrono::milliseconds(options.continuous_debounce_ms * 3 + 100));
    result.catalog_versions = catalog.version() - first_version;
    watcher.stop();
    return result;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse_options(argc, argv);
    // A line per reload would drown the results; --verbose shows the watcher's decisions.
    spdlog::set_level(options.verbose ? spdlog::level::debug : spdlog::level::warn);
    bool targets_met = true;
    try {
        std::printf(
            "Reload latency: rename into the watched directory -> skill in the catalog (debounce %d ms, "
            "%d samples)\n\n",
            options.debounce_ms, options.samples);
        std::printf(
            "| plugins installed | median (ms) | p99 (ms) | min (ms) | max (ms) | target: median <= %d ms "
            "| rebuild median / p99 (ms) | rename() p99 (ms) |\n",
            options.debounce_ms + 20);
        std::printf("|---|---|---|---|---|---|---|---|\n");
        for (int installed : {1, 200}) {
            const auto latency = measure_latency(installed, options);
            if (latency.samples_ms.empty()) throw std::runtime_error("no sample completed");
            const double median = percentile(latency.samples_ms, 0.5);
            const bool met = median <= options.debounce_ms + 20 && latency.timeouts == 0;
            targets_met = targets_met && met;
            const std::string timeouts =
                latency.timeouts ? " (" + std::to_string(latency.timeouts) + " timeouts)" : std::string();
            std::printf("| %d | %.1f | %.1f | %.1f | %.1f | %s%s | %.1f / %.1f | %.1f |\n", installed, median,
                        percentile(latency.samples_ms, 0.99), percentile(latency.samples_ms, 0.0),
                        percentile(latency.samples_ms, 1.0), met ? "met" : "MISSED", timeouts.c_str(),
                        latency.rebuild_ms.empty() ? 0.0 : percentile(latency.rebuild_ms, 0.5),
                        latency.rebuild_ms.empty() ? 0.0 : percentile(latency.rebuild_ms, 0.99),
                        percentile(latency.rename_ms, 0.99));
        }

        std::printf("\nCalls during continuous reloads: library replaced every %d ms for %.1f s (debounce %d ms)\n\n",
                    options.replace_every_ms, options.continuous_seconds, options.continuous_debounce_ms);
        auto continuous = measure_continuous(options);
        std::printf("| calls | failed | answered by v1 | answered by v2 | replacements | catalog versions |\n");
        std::printf("|---|---|---|---|---|---|\n");
        std::printf("| %llu | %llu | %llu | %llu | %d | %llu |\n", static_cast<unsigned long long>(continuous.calls),
                    static_cast<unsigned long long>(continuous.failed),
                    static_cast<unsigned long long>(continuous.answers_by_version[1]),
                    static_cast<unsigned long long>(continuous.answers_by_version[2]), continuous.replacements,
                    static_cast<unsigned long long>(continuous.catalog_versions));
        if (continuous.failed) {
            std::printf("\nfirst failure: %s\n", continuous.first_failure.c_str());
            targets_met = false;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "reload benchmark failed: %s\n", e.what());
        return 1;
    }
    std::printf("\n%s\n", targets_met ? "all targets met" : "TARGETS MISSED");
    return targets_met ? 0 : 1;
}
