// (b) Discovery and loading of 200 generated plugins: read 200 manifests from one directory, copy
// each library privately, dlopen it, check the entry symbol, ABI version and skill table, init it,
// and build the catalog snapshot. Unloading is not timed.
#include "generated_plugins.hpp"

#include "catalog/catalog_snapshot.hpp"
#include "plugin/plugin_loader.hpp"

#include <benchmark/benchmark.h>

#include <memory>

namespace {

using namespace skillhost;

void BM_DiscoverAndLoadPlugins(benchmark::State& state) {
    const int count = static_cast<int>(state.range(0));
    bench::ScratchDir scratch("skillhost-bench-discovery");
    const auto dir = bench::generate_plugins(scratch.path() / "plugins", count);
    plugin::PluginLoader loader(plugin::LoaderOptions{scratch.path() / "plugin-cache", {}});
    for (auto _ : state) {
        auto report = plugin::discover_plugins(loader, {dir});
        auto snapshot =
            std::make_unique<catalog::CatalogSnapshot>(1, std::move(report.plugins), std::move(report.failures));
        if (snapshot->entries().size() != static_cast<std::size_t>(count) || !snapshot->failures().empty()) {
            const std::string why = snapshot->failures().empty() ? std::string("missing skills")
                                                                 : snapshot->failures().front().error.message;
            state.SkipWithError(why.c_str());
            break;
        }
        state.PauseTiming();
        snapshot.reset();  // unloading: dlclose and removing 200 private copies, outside the timing
        state.ResumeTiming();
    }
    state.counters["plugins"] = count;
}
BENCHMARK(BM_DiscoverAndLoadPlugins)
    ->Arg(200)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
