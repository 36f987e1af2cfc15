#include "cli/decision_commands.hpp"

#include <cctype>

namespace skillhost::cli {

std::string command_of(decisions::DecisionKind kind) {
    return decisions::rules_of(kind).command();
}

std::string id_help(decisions::DecisionKind kind) {
    const auto& rules = decisions::rules_of(kind);
    std::string noun(rules.noun);
    if (!noun.empty()) noun[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(noun[0])));
    return noun + " id (" + std::string(rules.id_prefix) + "...)";
}

std::string with_id(std::string_view text, std::string_view id) {
    std::string out(text);
    if (const auto at = out.find("ID"); at != std::string::npos) out.replace(at, 2, id);
    return out;
}

std::string nothing_pending(decisions::DecisionKind kind) {
    return "No pending " + command_of(kind) + ". (--all shows " + std::string(decisions::rules_of(kind).unresolved) +
           " ones too)";
}

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
