// The operator's own cost, model time excluded:
//  (a) host overhead per ReAct step: an instant in-process model answers every planner request with
//      an echo action, so the time per step is prompt building, parsing, guards, the CallPipeline
//      (policy + executor + the C ABI call into the `echo` fixture) and observation rendering.
//      Target: <= 200 us per step.
//  (b) the planner's catalog for the built-in plugins: <= 2,000 tokens (characters / 4).
//  (c) prompt growth with trimming: the step-50 prompt <= 1.3 x the step-10 prompt.
#include "generated_plugins.hpp"

#include "exec/call_pipeline.hpp"
#include "exec/executor.hpp"
#include "llm/model_router.hpp"
#include "operator/operator.hpp"
#include "operator/planner_prompt.hpp"
#include "plugin/plugin_loader.hpp"
#include "decisions/approval_queue.hpp"
#include "policy/policy_engine.hpp"
#include "store/guidance_store.hpp"
#include "store/run_store.hpp"

#include <benchmark/benchmark.h>
#include <boost/json.hpp>

#include <atomic>
#include <cstdlib>
#include <iostream>

namespace {

namespace json = boost::json;
using namespace skillhost;

// A model that answers at once: the next echo action for the planner, "ok" for anything else.
class InstantModel final : public llm::ChatBackend {
public:
    Result<llm::ChatResponse> chat(const llm::ChatRequest& request, const std::atomic<bool>*,
                                   const llm::StreamDeltaHandler&) override {
        llm::ChatResponse response;
        if (request.role == "orchestrator") {
            response.content = R"({"thought":"echo again","action":{"tool":"echo","args":{"text":"step )" +
                               std::to_string(counter_++) + "\"}}}";
        } else if (request.role == "classifier") {
            response.content = R"({"intent":"complex","confidence":1})";
        } else {
            response.content = "ok";
        }
        response.backend = "instant";
        return response;
    }
    std::string_view kind() const override { return "scripted"; }

private:
    std::uint64_t counter_ = 0;
};

struct Setup {
    bench::ScratchDir home{"skillhost-bench-operator"};
    plugin::PluginLoader loader{plugin::LoaderOptions{home.path() / "plugin-cache", {}}};
    std::shared_ptr<catalog::CatalogSnapshot> echo_catalog;
    std::shared_ptr<catalog::CatalogSnapshot> builtin_catalog;
    policy::PolicyEngine policy{policy::PolicyConfig{}};
    std::unique_ptr<decisions::ApprovalQueue> approvals;
    exec::Executor executor;
    std::unique_ptr<exec::CallPipeline> pipeline;
    std::unique_ptr<llm::ModelRouter> router;
    std::unique_ptr<store::RunStore> runs;
    auth::UserContext user;

    Setup() {
        auto echo = loader.load_file(std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo" / "echo.yaml");
        if (!echo) fail("cannot load the echo fixture (build skillhost_test_fixtures first): " + echo.error().message);
        echo_catalog = std::make_shared<catalog::CatalogSnapshot>(1, std::vector{echo.value()},
                                                                  std::vector<plugin::PluginFailure>{});
        std::vector<std::shared_ptr<plugin::LoadedPlugin>> builtin;
        for (const char* name : {"tasks", "fs", "memory", "conversational_response"}) {
            auto loaded =
                loader.load_file(std::filesystem::path(SKILLHOST_BUILTIN_PLUGIN_DIR) / (std::string(name) + ".yaml"));
            if (!loaded) fail(std::string("cannot load built-in plugin ") + name + ": " + loaded.error().message);
            builtin.push_back(loaded.value());
        }
        builtin_catalog =
            std::make_shared<catalog::CatalogSnapshot>(2, std::move(builtin), std::vector<plugin::PluginFailure>{});

        auto queue = decisions::ApprovalQueue::open(home.path() / "skillhost.db");
        if (!queue) fail(queue.error().message);
        approvals = std::move(queue.value());
        user.user_id = "bench";
        user.trust = manifest::TrustLevel::adaptive_auto;
        user.workspace = home.path() / "workspace";
        std::filesystem::create_directories(user.workspace);
        exec::PipelineParts parts;
        parts.policy = &policy;
        parts.approvals = approvals.get();
        parts.executor = &executor;
        parts.users_dir = home.path() / "users";
        auto u = user;
        parts.resolve_user = [u](std::string_view) -> Result<auth::UserContext> { return u; };
        pipeline = std::make_unique<exec::CallPipeline>(parts);

        // Every role goes to a scripted-kind model served by the instant backend.
        llm::ModelsConfig models = llm::default_models_config();
        llm::ModelSpec instant;
        instant.name = "instant";
        instant.backend = "scripted";
        models.models.emplace(instant.name, instant);
        for (auto& [role, model] : models.roles) model = instant.name;
        router = std::make_unique<llm::ModelRouter>(models);
        if (!router->set_backend(instant.name, std::make_shared<InstantModel>())) fail("router");
        auto store = store::RunStore::open(home.path() / "skillhost.db");
        if (!store) fail(store.error().message);
        runs = std::move(store.value());
    }

    [[noreturn]] static void fail(const std::string& message) {
        std::cerr << message << "\n";
        std::exit(1);
    }

    op::Operator make_operator(int max_steps, std::shared_ptr<catalog::CatalogSnapshot> catalog) {
        op::OperatorParts parts;
        parts.pipeline = pipeline.get();
        parts.router = router.get();
        parts.runs = runs.get();
        parts.catalog = [catalog] { return std::shared_ptr<const catalog::CatalogSnapshot>(catalog); };
        parts.config.max_steps = max_steps;
        parts.config.error_retry = false;
        return op::Operator(parts);
    }
};

Setup& setup() {
    static Setup s;
    return s;
}

// (a) A whole run of N action steps (+ classification, the final no-tools step, two saves), per step.
void BM_ReactStepHostOverhead(benchmark::State& state) {
    auto& s = setup();
    const int steps = static_cast<int>(state.range(0));
    auto op = s.make_operator(steps, s.echo_catalog);
    std::int64_t total_steps = 0;
    for (auto _ : state) {
        auto run = op.run("echo things", s.user);
        if (!run || run->status != store::RunStatus::completed || static_cast<int>(run->steps.size()) != steps) {
            state.SkipWithError(run ? ("run ended " + std::string(store::to_string(run->status)) +
                                       (run->error ? ": " + run->error->message : std::string()))
                                          .c_str()
                                    : run.error().message.c_str());
            break;
        }
        total_steps += steps;
    }
    state.counters["us_per_step"] = benchmark::Counter(static_cast<double>(total_steps) / 1e6,
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
// Wall time: the skill runs on the executor's worker thread, so CPU time of this thread undercounts.
BENCHMARK(BM_ReactStepHostOverhead)
    ->Arg(10)
    ->Arg(50)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

// (b) The planner's view of the built-in catalog: rendered once per catalog version and mode, then cached.
void BM_PlannerCatalogBuiltin(benchmark::State& state) {
    auto& s = setup();
    auto op = s.make_operator(10, s.builtin_catalog);
    std::size_t chars = 0;
    for (auto _ : state) {
        auto view = op.planner_catalog(*s.builtin_catalog, s.user);
        chars = view->text.size();
        benchmark::DoNotOptimize(view);
    }
    state.counters["catalog_chars"] = static_cast<double>(chars);
    state.counters["catalog_tokens"] = static_cast<double>(chars) / 4.0;
}
BENCHMARK(BM_PlannerCatalogBuiltin);

// (c) The planner prompt after 10 and after 50 steps, with the default trim (last 5 in full).
std::vector<store::ScratchpadEntry> synthetic_steps(int n) {
    std::vector<store::ScratchpadEntry> steps;
    for (int i = 1; i <= n; ++i) {
        store::ScratchpadEntry e;
        e.step = i;
        e.thought = "Look at the next part of the task list to find the overdue items.";
        e.action = store::Action{"task_list", json::object{{"limit", i}}};
        store::Observation o;
        o.success = true;
        o.content =
            "task_list returned:\ntasks (3):\n  - Water the plants (id: 1, status: open)\n"
            "  - Renew the passport (id: 2, status: open, priority: high)\n  - Call the dentist (id: 3)\ncount: 3";
        e.observation = o;
        steps.push_back(e);
    }
    return steps;
}

void BM_PlannerPromptGrowth(benchmark::State& state) {
    auto& s = setup();
    auto op = s.make_operator(60, s.builtin_catalog);
    auto view = op.planner_catalog(*s.builtin_catalog, s.user);
    const std::string goal = "Find my overdue tasks";
    const std::vector<std::string> history;
    const auto size_at = [&](int n) {
        const auto steps = synthetic_steps(n);
        op::PlannerPromptInput input;
        input.goal = &goal;
        input.catalog_text = &view->text;
        input.catalog_tools = &view->tools;
        input.steps = steps;
        input.history = &history;
        input.trim_to_last_n = 5;
        input.step_number = n + 1;
        input.max_steps = 60;
        std::size_t chars = 0;
        for (const auto& m : op::build_planner_request(input).messages) chars += m.content.size();
        return chars;
    };
    std::size_t at10 = 0;
    std::size_t at50 = 0;
    for (auto _ : state) {
        at10 = size_at(10);
        at50 = size_at(50);
    }
    state.counters["prompt_chars_step10"] = static_cast<double>(at10);
    state.counters["prompt_chars_step50"] = static_cast<double>(at50);
    state.counters["growth_50_over_10"] = static_cast<double>(at50) / static_cast<double>(at10);
}
BENCHMARK(BM_PlannerPromptGrowth)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
