// The overhead of a foreign MCP tool call over the server's own round trip, three ways side by side
// against the same server process (the fixture server's `echo`, over stdio):
//   BM_UpstreamRoundTrip        the bare client: one tools/call written and its answer read;
//   BM_ForeignPluginInvoke      the same call as the plugin makes it (skill id to tool, arguments,
//                               the result made an outcome, its content blocks passed on);
//   BM_ForeignCallThroughPipeline the whole pipeline (lookup, validation, policy, audit records,
//                               the executor) on the caller's thread, as `skillhost mcp` runs it.
// Time is wall time per call (UseRealTime); CPU is this process's (the server's is not counted).
#include "../pipeline/pipeline_fixture.hpp"

#include "plugin/call_control.hpp"
#include "plugin/foreign_plugin.hpp"
#include "plugin/foreign_process.hpp"
#include "upstream/mcp_client.hpp"
#include "upstream/rpc_channel.hpp"

#include <benchmark/benchmark.h>

#include <fstream>

namespace {

using namespace skillhost;
using skillhost::bench::must;
using skillhost::bench::Pipeline;

const std::string kServer =
    std::string(SKILLHOST_TEST_FIXTURES_BINARY_DIR) + "/foreign_mcp/skillhost_fixture_mcp_server";

manifest::ForeignServer declaration(const std::filesystem::path& dir) {
    const auto file = dir / "fixture.yaml";
    std::ofstream(file) << "kind: mcp_server\nname: fixture\ntransport: stdio\ncommand: " << kServer
                        << "\nskills:\n  - {id: echo, risk: low, min_trust: observe, requires_approval: false}\n";
    return must(manifest::load_foreign_server(file), "declaration");
}

void BM_UpstreamRoundTrip(benchmark::State& state) {
    plugin::ForeignLaunch launch;
    launch.server = "fixture";
    launch.command = kServer;
    auto process = must(plugin::ForeignProcess::start(launch), "start the fixture server");
    auto channel = std::make_shared<upstream::RpcChannel>("fixture", process->take_stdout(), process->take_stdin(),
                                                          upstream::RpcLimits{}, upstream::RpcHandlers{});
    upstream::McpClient client(channel);
    must(client.initialize({}, "bench", upstream::Clock::now() + std::chrono::seconds(10)), "initialize");
    for (auto _ : state) {
        auto answer = client.call_tool("echo", boost::json::object{{"message", "hello from the foreign benchmark"}},
                                       upstream::Clock::now() + std::chrono::seconds(10), nullptr);
        if (!answer) state.SkipWithError(answer.error().message.c_str());
        benchmark::DoNotOptimize(answer);
    }
}
BENCHMARK(BM_UpstreamRoundTrip)->MeasureProcessCPUTime()->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);

void BM_ForeignPluginInvoke(benchmark::State& state) {
    bench::ScratchDir dir{"skillhost-bench-foreign"};
    plugin::ForeignOptions options;
    auto plugin = must(plugin::load_foreign_server(declaration(dir.path()), options), "load the fixture server");
    plugin::Call call;
    call.skill_id = "fixture__echo";
    for (auto _ : state) {
        plugin::CallControl control;
        call.control = &control;
        auto outcome = plugin->invoke(call, R"({"message":"hello from the foreign benchmark"})");
        if (outcome.written != plugin::RawOutcome::Written::result) state.SkipWithError(outcome.error_message.c_str());
        benchmark::DoNotOptimize(outcome);
    }
}
BENCHMARK(BM_ForeignPluginInvoke)->MeasureProcessCPUTime()->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);

void BM_ForeignCallThroughPipeline(benchmark::State& state) {
    Pipeline p;
    plugin::ForeignOptions options;
    auto plugin = must(plugin::load_foreign_server(declaration(p.home.path()), options), "load the fixture server");
    p.catalog =
        std::make_shared<catalog::CatalogSnapshot>(2, std::vector{plugin}, std::vector<plugin::PluginFailure>{});
    p.request.skill_id = "fixture__echo";
    p.request.args = boost::json::object{{"message", "hello from the foreign benchmark"}};
    bench::calls_on_caller_thread(state, p);
}
BENCHMARK(BM_ForeignCallThroughPipeline)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
