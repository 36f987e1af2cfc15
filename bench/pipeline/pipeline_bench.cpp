// A no-op call through the whole call pipeline, in-process, as every front end makes it: lookup,
// argument validation, policy (mode, rules, trust), the audit log (decision and skill_call records,
// fsync: interval, the default), the executor and the real `echo` fixture plugin over the C ABI.
//
// CPU time is the process's (MeasureProcessCPUTime): the worker that runs the plugin, the deadline
// watcher and the audit syncer count too, not only the calling thread. Target: <= 10 us per call
// (docs/performance.md).
#include "generated_plugins.hpp"

#include "exec/call_pipeline.hpp"
#include "plugin/plugin_loader.hpp"
#include "policy/mode_cache.hpp"
#include "policy/mode_store.hpp"
#include "policy/policy_config.hpp"
#include "auth/users.hpp"

#include <benchmark/benchmark.h>

#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <mutex>

namespace {

using namespace skillhost;
namespace fs = std::filesystem;

template <typename T>
T must(Result<T> result, const char* what) {
    if (!result) {
        std::cerr << what << ": " << result.error().message << "\n";
        std::exit(1);
    }
    return std::move(result.value());
}

struct Pipeline {
    bench::ScratchDir home{"skillhost-bench-pipeline"};
    plugin::PluginLoader loader{plugin::LoaderOptions{home.path() / "plugin-cache", {}}};
    std::shared_ptr<catalog::CatalogSnapshot> catalog;
    std::unique_ptr<auth::UserDirectory> users;
    std::unique_ptr<policy::ModeCache> modes;
    std::unique_ptr<audit::AuditLog> audit;
    std::unique_ptr<decisions::ApprovalQueue> approvals;
    std::unique_ptr<policy::PolicyEngine> engine;
    exec::Executor executor;
    std::unique_ptr<exec::CallPipeline> pipeline;
    exec::CallRequest request;

    Pipeline() {
        auto echo = must(loader.load_file(fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo" / "echo.yaml"),
                         "cannot load the echo fixture (build fixture_echo first)");
        catalog =
            std::make_shared<catalog::CatalogSnapshot>(1, std::vector{echo}, std::vector<plugin::PluginFailure>{});
        users = std::make_unique<auth::UserDirectory>(
            must(auth::parse_users("users:\n  - {id: owner, role: owner, trust: supervised_auto}\n",
                                   home.path() / "users.yaml", home.path() / "workspace"),
                 "users"));
        engine = std::make_unique<policy::PolicyEngine>(
            must(policy::parse_policy_config("global:\n  deny:\n    - \"add(a=13)\"\n", home.path() / "policy.yaml"),
                 "policy"));
        // As in the host: the mode cache in front of the store, consulted by every call.
        modes = must(policy::ModeCache::open(must(policy::ModeStore::open(home.path() / "skillhost.db"), "modes"),
                                             home.path() / "skillhost.db-modes"),
                     "mode cache");
        audit = must(audit::AuditLog::open(home.path() / "audit"), "audit");
        decisions::ApprovalQueueOptions qo;
        qo.audit = audit.get();
        approvals = must(decisions::ApprovalQueue::open(home.path() / "skillhost.db", qo), "approvals");
        exec::PipelineParts parts;
        parts.policy = engine.get();
        parts.approvals = approvals.get();
        parts.audit = audit.get();
        parts.executor = &executor;
        parts.users_dir = home.path() / "users";
        parts.resolve_user = [this](std::string_view id) { return policy::resolve_user_context(*users, *modes, id); };
        pipeline = std::make_unique<exec::CallPipeline>(std::move(parts));
        request.skill_id = "noop";
        request.user = must(policy::resolve_user_context(*users, *modes, "owner"), "user");
        request.requested_by = auth::Requester::api();
    }
};

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

// The same call started on the caller's own thread (RunOn::this_thread): no hand-off at all; the
// deadline watcher would answer a late call.
void calls_on_caller_thread(benchmark::State& state, Pipeline& p) {
    for (auto _ : state) {
        exec::CallOutcome outcome;
        p.pipeline->start(
            *p.catalog, p.request, [&outcome](exec::CallOutcome o) { outcome = std::move(o); },
            exec::RunOn::this_thread);
        if (!outcome.result.ok) state.SkipWithError(outcome.result.error.message.c_str());
        benchmark::DoNotOptimize(outcome);
    }
}

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
