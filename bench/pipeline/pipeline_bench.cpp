// A no-op call through the whole call pipeline, in-process, as every front end makes it: lookup,
// argument validation, policy (mode, rules, trust), the audit log (decision and skill_call records,
// fsync: interval, the default), the executor and the real `echo` fixture plugin over the C ABI.
//
// CPU time is the process's (MeasureProcessCPUTime): the worker that runs the plugin, the deadline
// watcher and the audit syncer count too, not only the calling thread. Target: <= 10 us per call
// (docs/performance.md).
#include "pipeline_fixture.hpp"

#include <benchmark/benchmark.h>

#include <condition_variable>
#include <mutex>

namespace {

using namespace skillhost;
using skillhost::bench::calls_on_caller_thread;
using skillhost::bench::Pipeline;

// The synchronous call the HTTP API and the operator make: the plugin runs on an executor worker
// (one hand-off there and one wake-up back).
void BM_PipelineNoopCall(benchmark::State& state) {
    Pipeline p;
    for (auto _ : state) {
        auto outcome = p.pipeline->call(*p.catalog, p.request);
        if (!outcome.result.ok) state.SkipWithError(outcome.result.error.message.c_str());
        benchmark::DoNotOptimize(outcome);
    }
}
BENCHMARK(BM_PipelineNoopCall)->MeasureProcessCPUTime()->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);

void BM_PipelineNoopCallOnCallerThread(benchmark::State& state) {
    Pipeline p;
    calls_on_caller_thread(state, p);
}
BENCHMARK(BM_PipelineNoopCallOnCallerThread)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

// The call bench/mcp/run.sh makes over MCP stdio (echo with a text; two defaults applied, the
// result checked against the output schema), on the caller's thread as the stdio reader runs it:
// what the MCP session and the transport add is the difference to that bench's CPU per call.
void BM_PipelineEchoCallOnCallerThread(benchmark::State& state) {
    Pipeline p;
    p.request.skill_id = "echo";
    p.request.args = boost::json::object{{"text", "hello from the MCP benchmark"}};
    calls_on_caller_thread(state, p);
}
BENCHMARK(BM_PipelineEchoCallOnCallerThread)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

// The MCP path: started from one thread, the plugin on a worker, the answer delivered by the worker
// (one hand-off). The loop waits for each answer before the next call, like a sequential client.
void BM_PipelineNoopCallStartedOnWorker(benchmark::State& state) {
    Pipeline p;
    std::mutex mutex;
    std::condition_variable arrived;
    for (auto _ : state) {
        bool done = false;
        bool ok = false;
        p.pipeline->start(*p.catalog, p.request, [&](exec::CallOutcome o) {
            std::lock_guard lock(mutex);
            ok = o.result.ok;
            done = true;
            arrived.notify_one();
        });
        std::unique_lock lock(mutex);
        arrived.wait(lock, [&] { return done; });
        if (!ok) state.SkipWithError("the call failed");
    }
}
BENCHMARK(BM_PipelineNoopCallStartedOnWorker)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
