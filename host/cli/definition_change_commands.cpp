// `skillhost definition_changes list|show|approve|reject`: changed definitions of foreign MCP
// servers' tools, which owners review (the diff) and approve (the new definition is pinned and the
// tool callable again) or reject (it stays refused).
#include "cli/cli_context.hpp"
#include "cli/decision_commands.hpp"
#include "cli/output.hpp"
#include "app/definition_change_actions.hpp"

#include <iostream>

namespace skillhost::cli {
namespace {

struct DefinitionChangeArgs : DecisionArgs {
    std::string reason;
};

int print_decided(const Result<decisions::DefinitionChangeRecord>& record, const DefinitionChangeArgs& a,
                  std::string_view done) {
    if (!record) return fail_operation(record.error(), a.json);
    if (a.json) {
        print_json(boost::json::object{{"definition_change", record->to_json()}});
        return kExitOk;
    }
    std::cout << done << " " << record->id << " (" << record->what() << "): " << decisions::to_string(record->state)
              << "\n";
    return kExitOk;
}

int run_approve(CliContext& ctx, const DefinitionChangeArgs& a) {
    return as_acting_user(ctx, a, [&](HostRuntime& host, const auth::UserContext& user) {
        return print_decided(app::approve_definition_change(host, a.id, user), a, "Approved");
    });
}

int run_reject(CliContext& ctx, const DefinitionChangeArgs& a) {
    return as_acting_user(ctx, a, [&](HostRuntime& host, const auth::UserContext& user) {
        return print_decided(app::reject_definition_change(host, a.id, user, a.reason), a, "Rejected");
    });
}

constexpr DecisionCommandTexts definition_change_texts{
    .kind = decisions::DecisionKind::definition_change,
    .show_help = "One definition change with the old and new definition and what changed",
    .next_step = "approve ID   (or: skillhost definition_changes reject ID --reason TEXT)"};

}  // namespace

void register_definition_change_commands(CLI::App& app, CliContext& ctx) {
    auto* changes =
        app.add_subcommand("definition_changes",
                           "Changed tools of foreign MCP servers, refused until approved: list, show, approve, reject");
    changes->require_subcommand(1);
    add_list_and_show_commands<decisions::DefinitionChangeRecord, decisions::DefinitionChangeState,
                               DefinitionChangeArgs>(*changes, ctx, definition_change_texts);
    add_decision_action(
        *changes, ctx, std::make_shared<DefinitionChangeArgs>(), decisions::DecisionKind::definition_change, "approve",
        "Pin the new definition (owners only): the tool is called as the server now lists it", run_approve);
    auto ra = std::make_shared<DefinitionChangeArgs>();
    auto* reject = add_decision_action(*changes, ctx, ra, decisions::DecisionKind::definition_change, "reject",
                                       "Keep refusing the changed tool (owners only)", run_reject);
    reject->add_option("--reason", ra->reason, "Why it is refused")->required();
}

}  // namespace skillhost::cli
