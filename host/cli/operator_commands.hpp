// What `ask`, `runs` and `guide` share: the operator built over the CLI's host runtime (its call
// pipeline and catalog), with the model router from models.yaml and the run/guidance stores in
// skillhost.db.
#pragma once

#include "cli/cli_context.hpp"
#include "app/operator_runtime.hpp"

#include <CLI/CLI.hpp>

namespace skillhost::cli {

using OperatorRuntime = app::OperatorRuntime;

// The operator over this command's host runtime.
Result<OperatorRuntime> make_operator_runtime(CliContext& ctx);

// Prints a run for people: status, answer or error, and with `debug` every step.
void print_run(const store::Run& run, bool debug);

void register_operator_commands(CLI::App& app, CliContext& ctx);
void register_runs_commands(CLI::App& app, CliContext& ctx);

}  // namespace skillhost::cli
