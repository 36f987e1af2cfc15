#include "cli/decision_commands.hpp"

namespace skillhost::cli {

Result<std::pair<HostRuntime*, auth::UserContext>> acting(CliContext& ctx, const std::string& user) {
    auto runtime = ctx.runtime();
    if (!runtime) return runtime.error();
    auto resolved = runtime.value()->user(user);
    if (!resolved) return resolved.error();
    return std::make_pair(runtime.value(), resolved.value());
}

void add_decision_options(CLI::App& command, CliContext& ctx, DecisionArgs& args) {
    command.add_option("--user", args.user, "Act as this user (default: the configured default user)");
    command.add_flag("--json", args.json, "Machine-readable output");
    ctx.add_global_options(command);
}

}  // namespace skillhost::cli
