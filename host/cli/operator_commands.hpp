// What `ask`, `runs` and `guide` share: the operator built over the CLI's host runtime (its call
// pipeline and catalog), with the model router from models.yaml and the run/guidance stores in
// skillhost.db.
#pragma once

#include "cli/cli_context.hpp"
#include "llm/model_router.hpp"
#include "operator/operator.hpp"
#include "store/guidance_store.hpp"
#include "store/run_store.hpp"

#include <CLI/CLI.hpp>

#include <memory>

namespace skillhost::cli {

struct OperatorRuntime {
    HostRuntime* host = nullptr;
    llm::ModelRouter* router = nullptr;           // the host's (it also serves plugins' completions)
    std::unique_ptr<llm::ModelRouter> own_router;  // only when the host runtime has none
    std::unique_ptr<store::RunStore> runs;
    std::unique_ptr<store::GuidanceStore> guidance;
    std::unique_ptr<op::Operator> op;
};

Result<OperatorRuntime> make_operator_runtime(CliContext& ctx);

// Prints a run for people: status, answer or error, and with `debug` every step.
void print_run(const store::Run& run, bool debug);

void register_operator_commands(CLI::App& app, CliContext& ctx);
void register_runs_commands(CLI::App& app, CliContext& ctx);

}  // namespace skillhost::cli
