// (c) Rendering the catalog of 200 skills in each format, uncached (the snapshot caches each
// format after the first render; these measure that first render). The catalog comes from 200
// generated plugins loaded for real, each with one skill with three inputs and two outputs.
#include "generated_plugins.hpp"

#include "catalog/catalog_render.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "plugin/plugin_loader.hpp"

#include <benchmark/benchmark.h>
#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <iostream>

namespace {

using namespace skillhost;

struct Catalog200 {
    bench::ScratchDir scratch{"skillhost-bench-render"};
    plugin::PluginLoader loader{plugin::LoaderOptions{scratch.path() / "plugin-cache", {}}};
    std::unique_ptr<catalog::CatalogSnapshot> snapshot;
    std::vector<const catalog::CatalogEntry*> entries;

    Catalog200() {
        const auto dir = bench::generate_plugins(scratch.path() / "plugins", 200);
        auto report = plugin::discover_plugins(loader, {dir});
        snapshot = std::make_unique<catalog::CatalogSnapshot>(1, std::move(report.plugins), std::move(report.failures));
        if (snapshot->entries().size() != 200) {
            std::cerr << "expected 200 skills, got " << snapshot->entries().size() << "\n";
            std::exit(1);
        }
        entries = catalog::all_entries(*snapshot);
    }
};

Catalog200& catalog200() {
    static Catalog200 c;
    return c;
}

void report_size(benchmark::State& state, std::size_t bytes) {
    state.counters["bytes"] = static_cast<double>(bytes);
    state.counters["tokens_est"] = static_cast<double>(bytes) / 4.0;
}

void BM_RenderText(benchmark::State& state) {
    auto& c = catalog200();
    std::size_t size = 0;
    for (auto _ : state) {
        auto text = catalog::render_catalog_text(c.entries);
        size = text.size();
        benchmark::DoNotOptimize(text);
    }
    report_size(state, size);
}
BENCHMARK(BM_RenderText)->Unit(benchmark::kMicrosecond);

void BM_RenderJson(benchmark::State& state) {
    auto& c = catalog200();
    std::size_t size = 0;
    for (auto _ : state) {
        auto text = boost::json::serialize(catalog::render_catalog_json(c.entries));
        size = text.size();
        benchmark::DoNotOptimize(text);
    }
    report_size(state, size);
}
BENCHMARK(BM_RenderJson)->Unit(benchmark::kMicrosecond);

void BM_RenderOpenai(benchmark::State& state) {
    auto& c = catalog200();
    std::size_t size = 0;
    for (auto _ : state) {
        auto text = boost::json::serialize(catalog::render_catalog_openai(c.entries));
        size = text.size();
        benchmark::DoNotOptimize(text);
    }
    report_size(state, size);
}
BENCHMARK(BM_RenderOpenai)->Unit(benchmark::kMicrosecond);

void BM_RenderMcp(benchmark::State& state) {
    auto& c = catalog200();
    std::size_t size = 0;
    for (auto _ : state) {
        auto text = boost::json::serialize(catalog::render_catalog_mcp(c.entries));
        size = text.size();
        benchmark::DoNotOptimize(text);
    }
    report_size(state, size);
}
BENCHMARK(BM_RenderMcp)->Unit(benchmark::kMicrosecond);

void BM_RenderTable(benchmark::State& state) {
    auto& c = catalog200();
    std::size_t size = 0;
    for (auto _ : state) {
        auto text = catalog::render_catalog_table(c.entries);
        size = text.size();
        benchmark::DoNotOptimize(text);
    }
    report_size(state, size);
}
BENCHMARK(BM_RenderTable)->Unit(benchmark::kMicrosecond);

// What a reader pays once the format is cached: a lock and a map lookup.
void BM_RenderCachedText(benchmark::State& state) {
    auto& c = catalog200();
    c.snapshot->render(catalog::RenderFormat::text);
    for (auto _ : state) benchmark::DoNotOptimize(&c.snapshot->render(catalog::RenderFormat::text));
}
BENCHMARK(BM_RenderCachedText);

}  // namespace

BENCHMARK_MAIN();
