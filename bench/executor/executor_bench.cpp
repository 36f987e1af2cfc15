// (a) One call of a no-op skill through the whole executor path: lookup, argument validation and
// defaults, serialisation, hand-off to a worker, the C ABI call into the real `echo` fixture plugin,
// result parsing. The other benchmarks split that cost into its parts.
#include "generated_plugins.hpp"

#include "exec/argument_validation.hpp"
#include "exec/executor.hpp"
#include "base/worker_pool.hpp"
#include "plugin/plugin_loader.hpp"

#include <benchmark/benchmark.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <iostream>

namespace {

namespace json = boost::json;
using namespace skillhost;

struct Setup {
    bench::ScratchDir home{"skillhost-bench-exec"};
    plugin::PluginLoader loader{plugin::LoaderOptions{home.path() / "plugin-cache", {}}};
    std::shared_ptr<catalog::CatalogSnapshot> catalog;
    plugin::Call caller;
    exec::CallOptions options;

    Setup() {
        auto echo = loader.load_file(std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo" / "echo.yaml");
        if (!echo) {
            std::cerr << "cannot load the echo fixture (build fixture_echo first): " << echo.error().message << "\n";
            std::exit(1);
        }
        catalog = std::make_shared<catalog::CatalogSnapshot>(1, std::vector{echo.value()},
                                                             std::vector<plugin::PluginFailure>{});
        caller.user_id = "bench";
        options.users_dir = home.path() / "users";
    }
};

Setup& setup() {
    static Setup s;
    return s;
}

void BM_ExecutorCallNoop(benchmark::State& state) {
    auto& s = setup();
    exec::Executor executor;
    const json::value args = json::object();
    for (auto _ : state) {
        auto result = executor.call(*s.catalog, "noop", args, s.caller, s.options);
        if (!result.ok) state.SkipWithError(result.error.message.c_str());
        benchmark::DoNotOptimize(result);
    }
}
BENCHMARK(BM_ExecutorCallNoop)->MeasureProcessCPUTime()->UseRealTime()->Repetitions(10)->ReportAggregatesOnly(true);

void BM_ExecutorCallEchoWithDefaults(benchmark::State& state) {
    auto& s = setup();
    exec::Executor executor;
    const json::value args = json::parse(R"({"text":"hello"})");
    for (auto _ : state) {
        auto result = executor.call(*s.catalog, "echo", args, s.caller, s.options);
        if (!result.ok) state.SkipWithError(result.error.message.c_str());
        benchmark::DoNotOptimize(result);
    }
}
BENCHMARK(BM_ExecutorCallEchoWithDefaults)->Repetitions(10)->ReportAggregatesOnly(true);

void BM_ExecutorCallInvalidArgs(benchmark::State& state) {
    auto& s = setup();
    exec::Executor executor;
    const json::value args = json::parse(R"({"txt":"hello"})");
    for (auto _ : state) {
        auto result = executor.call(*s.catalog, "echo", args, s.caller, s.options);
        benchmark::DoNotOptimize(result);
    }
}
BENCHMARK(BM_ExecutorCallInvalidArgs)->Repetitions(5)->ReportAggregatesOnly(true);

// Parts of the path, for the breakdown in docs/performance.md.

void BM_PluginInvokeNoopDirect(benchmark::State& state) {
    auto& s = setup();
    const auto* entry = s.catalog->find("noop");
    plugin::CallControl control;
    plugin::Call context;
    context.skill_id = "noop";
    context.call_id = "call-0";
    context.user_id = "bench";
    context.data_dir = s.options.users_dir / "bench" / "plugins" / "echo";
    context.control = &control;
    for (auto _ : state) {
        auto outcome = entry->plugin->invoke(context, "{}");
        benchmark::DoNotOptimize(outcome);
    }
}
BENCHMARK(BM_PluginInvokeNoopDirect)->Repetitions(5)->ReportAggregatesOnly(true);

void BM_PrepareArgumentsEcho(benchmark::State& state) {
    auto& s = setup();
    const auto* entry = s.catalog->find("echo");
    const json::value args = json::parse(R"({"text":"hello"})");
    for (auto _ : state) {
        auto prepared = exec::prepare_arguments("echo", entry->spec->inputs, args);
        auto text = json::serialize(*prepared);
        benchmark::DoNotOptimize(text);
    }
}
BENCHMARK(BM_PrepareArgumentsEcho)->Repetitions(5)->ReportAggregatesOnly(true);

// The hand-off alone: submit an empty job to the executor's pool and wait (blocked) until it ran.
class EmptyJob final : public PoolJob {
public:
    std::mutex mutex;
    std::condition_variable ran;
    bool done = false;
    void run() noexcept override {
        std::lock_guard lock(mutex);
        done = true;
        ran.notify_one();
    }
};

void BM_WorkerPoolRoundTrip(benchmark::State& state) {
    WorkerPool pool;
    for (auto _ : state) {
        auto job = std::make_shared<EmptyJob>();
        if (!pool.submit(job)) state.SkipWithError("the pool refused a job");
        std::unique_lock lock(job->mutex);
        job->ran.wait(lock, [&] { return job->done; });
    }
}
BENCHMARK(BM_WorkerPoolRoundTrip)->MeasureProcessCPUTime()->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
