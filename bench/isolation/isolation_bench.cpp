// Plugin isolation, side by side in one run: a no-op call into the real `echo` fixture in-process
// and in its runner process (latency percentiles and CPU per call, the runner's CPU included), a
// runner's cold start (spawn, sandbox, dlopen, init, ready), and an idle runner's memory.
#include "generated_plugins.hpp"

#include "plugin/plugin_loader.hpp"
#include "plugin/process_plugin.hpp"

#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

namespace {

using namespace skillhost;
using Clock = std::chrono::steady_clock;

const std::filesystem::path echo_manifest =
    std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo" / "echo.yaml";

// `sandbox`: the runner's sandbox (namespaces, view, identity, seccomp, Landlock) as a daemon has it by
// default, or off, to show in one run what the sandbox itself costs.
std::shared_ptr<plugin::LoadedPlugin> load_echo(const std::filesystem::path& cache, plugin::IsolationMode mode,
                                                plugin::SandboxMode sandbox = plugin::SandboxMode::best_effort) {
    plugin::LoaderOptions options(cache);
    options.isolation.default_mode = mode;
    options.isolation.sandbox = sandbox;
    auto loaded = plugin::PluginLoader(options).load_file(echo_manifest);
    if (!loaded) {
        std::cerr << "cannot load the echo fixture (build fixture_echo and skillhost-runner first): "
                  << loaded.error().message << "\n";
        std::exit(1);
    }
    return loaded.value();
}

// CPU seconds (user + system) this process and the given runner processes have used.
double cpu_seconds(const std::vector<pid_t>& runners) {
    rusage self{};
    ::getrusage(RUSAGE_SELF, &self);
    double total = static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
                   static_cast<double>(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
    const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
    for (pid_t pid : runners) {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        std::getline(stat, line);
        const auto after_name = line.rfind(')');
        if (after_name == std::string::npos) continue;
        std::istringstream fields(line.substr(after_name + 2));
        std::string field;
        unsigned long utime = 0, stime = 0;
        for (int i = 3; fields >> field; ++i) {  // field 3 is the state; utime is 14, stime 15
            if (i == 14) utime = std::stoul(field);
            if (i == 15) {
                stime = std::stoul(field);
                break;
            }
        }
        total += static_cast<double>(utime + stime) / tick;
    }
    return total;
}

double resident_kib(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6));
    return 0;
}

void noop_calls(benchmark::State& state, plugin::IsolationMode mode,
                plugin::SandboxMode sandbox = plugin::SandboxMode::best_effort) {
    bench::ScratchDir home("skillhost-bench-isolation");
    auto plugin = load_echo(home.path() / "cache", mode, sandbox);
    plugin::Call context;
    context.skill_id = "noop";
    context.call_id = "bench";
    context.user_id = "bench";
    context.data_dir = home.path() / "data";
    (void)plugin->invoke(context, "{}");  // starts the runner, outside the measurement
    std::vector<pid_t> runners;
    if (auto* process = dynamic_cast<plugin::ProcessPlugin*>(plugin.get())) runners = process->runner_pids();

    std::vector<double> micros;
    micros.reserve(1 << 20);
    const double cpu_before = cpu_seconds(runners);
    for (auto _ : state) {
        const auto start = Clock::now();
        plugin::RawOutcome outcome = plugin->invoke(context, "{}");
        micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        if (outcome.status != SKILLHOST_STATUS_OK) state.SkipWithError("the no-op call failed");
        benchmark::DoNotOptimize(outcome);
    }
    const double cpu_after = cpu_seconds(runners);
    std::sort(micros.begin(), micros.end());
    auto at = [&](double q) {
        return micros.empty() ? 0.0 : micros[static_cast<std::size_t>(q * (micros.size() - 1))];
    };
    state.counters["p50_us"] = at(0.50);
    state.counters["p99_us"] = at(0.99);
    state.counters["cpu_us_per_call"] = micros.empty() ? 0.0 : (cpu_after - cpu_before) * 1e6 / micros.size();
}

void BM_NoopInProcess(benchmark::State& state) {
    noop_calls(state, plugin::IsolationMode::in_process);
}
BENCHMARK(BM_NoopInProcess)->UseRealTime()->MinTime(1.0);

void BM_NoopIsolated(benchmark::State& state) {
    noop_calls(state, plugin::IsolationMode::process);
}
BENCHMARK(BM_NoopIsolated)->UseRealTime()->MinTime(1.0);

void BM_NoopIsolatedUnsandboxed(benchmark::State& state) {
    noop_calls(state, plugin::IsolationMode::process, plugin::SandboxMode::off);
}
BENCHMARK(BM_NoopIsolatedUnsandboxed)->UseRealTime()->MinTime(1.0);

// Spawn, sandbox, dlopen, init, ready message; then the first call is served. (A plugin's load
// starts one runner to check it; each user's first call starts another.)
void cold_starts(benchmark::State& state, plugin::SandboxMode sandbox) {
    bench::ScratchDir home("skillhost-bench-isolation");
    auto plugin = load_echo(home.path() / "cache", plugin::IsolationMode::process, sandbox);
    plugin::Call context;
    context.skill_id = "noop";
    context.call_id = "bench";
    context.data_dir = home.path() / "data";
    int user = 0;
    double idle_kib = 0;
    for (auto _ : state) {
        context.user_id = "user" + std::to_string(++user);
        plugin::RawOutcome outcome = plugin->invoke(context, "{}");
        if (outcome.status != SKILLHOST_STATUS_OK) state.SkipWithError("the first call failed");
    }
    if (auto* process = dynamic_cast<plugin::ProcessPlugin*>(plugin.get())) {
        const auto pids = process->runner_pids();
        for (pid_t pid : pids) idle_kib += resident_kib(pid);
        if (!pids.empty()) state.counters["idle_runner_rss_kib"] = idle_kib / static_cast<double>(pids.size());
    }
}

void BM_RunnerColdStartAndFirstCall(benchmark::State& state) {
    cold_starts(state, plugin::SandboxMode::best_effort);
}
BENCHMARK(BM_RunnerColdStartAndFirstCall)->UseRealTime()->Iterations(50);

void BM_RunnerColdStartUnsandboxed(benchmark::State& state) {
    cold_starts(state, plugin::SandboxMode::off);
}
BENCHMARK(BM_RunnerColdStartUnsandboxed)->UseRealTime()->Iterations(50);

}  // namespace
BENCHMARK_MAIN();
