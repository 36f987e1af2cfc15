// `skillhost models list` and `skillhost models test ROLE`.
#include "cli/cli_context.hpp"
#include "cli/output.hpp"

#include <iomanip>
#include <iostream>

namespace skillhost::cli {
namespace {

struct ModelsArgs {
    std::string role;
    std::string mode;
    bool json = false;
};

int run_list(CliContext& ctx, const ModelsArgs& a) {
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), a.json);
    auto roles = rt.value()->models(a.mode);
    if (a.json) {
        boost::json::array arr;
        for (const auto& r : roles)
            arr.push_back({{"role", r.role},
                           {"mode", r.mode},
                           {"model_name", r.model_name},
                           {"source", r.source},
                           {"backend", r.spec.backend},
                           {"model", r.spec.model},
                           {"base_url", r.spec.base_url}});
        print_json(boost::json::object{{"roles", std::move(arr)}});
        return kExitOk;
    }
    std::cout << std::left << std::setw(14) << "ROLE" << std::setw(16) << "MODEL" << std::setw(10) << "BACKEND"
              << std::setw(28) << "NAME"
              << "FROM\n";
    for (const auto& r : roles) {
        std::cout << std::setw(14) << r.role << std::setw(16) << r.model_name << std::setw(10) << r.spec.backend
                  << std::setw(28) << (r.spec.model.empty() ? "-" : r.spec.model) << r.source << "\n";
    }
    return kExitOk;
}

int run_test(CliContext& ctx, const ModelsArgs& a) {
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), a.json);
    auto result = rt.value()->test_model(a.role, a.mode);
    if (a.json) {
        boost::json::object o{{"role", result.role},
                              {"mode", result.mode},
                              {"model_name", result.model_name},
                              {"backend", result.backend},
                              {"model", result.model},
                              {"latency_ms", result.latency.count()},
                              {"ok", result.ok},
                              {"structured_output_ok", result.structured_output_ok},
                              {"content", result.content}};
        if (result.error) o["error"] = result.error->to_json();
        print_json(o);
    } else {
        std::cout << "role:              " << result.role << "\n"
                  << "model:             " << result.model_name << " (" << result.backend
                  << (result.model.empty() ? "" : ", " + result.model) << ")\n"
                  << "latency:           " << result.latency.count() << " ms\n"
                  << "answered:          " << (result.ok ? "yes" : "no") << "\n"
                  << "structured output: " << (result.structured_output_ok ? "works" : "did not work") << "\n";
        if (result.error) print_error(*result.error);
    }
    return result.ok ? kExitOk : kExitFailed;
}

}  // namespace

void register_models_commands(CLI::App& app, CliContext& ctx) {
    auto* models = app.add_subcommand("models", "The models behind each role (models.yaml)");
    models->require_subcommand(1);
    auto la = std::make_shared<ModelsArgs>();
    auto* list = models->add_subcommand("list", "Which model serves each role, and why");
    list->add_option("--mode", la->mode, "Resolve for this cognitive mode (dual, agent, emulation)");
    list->add_flag("--json", la->json, "Machine-readable output");
    ctx.add_global_options(*list);
    list->callback([&ctx, la] { ctx.exit_code = run_list(ctx, *la); });

    auto ta = std::make_shared<ModelsArgs>();
    auto* test = models->add_subcommand("test", "Send a tiny request to a role's model: latency, structured output");
    test->add_option("ROLE", ta->role, "orchestrator | persona | classifier | critic | summarizer | fallback")
        ->required();
    test->add_option("--mode", ta->mode, "Resolve for this cognitive mode");
    test->add_flag("--json", ta->json, "Machine-readable output");
    ctx.add_global_options(*test);
    test->callback([&ctx, ta] { ctx.exit_code = run_test(ctx, *ta); });
}

}  // namespace skillhost::cli
