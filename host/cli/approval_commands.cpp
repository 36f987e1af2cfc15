// `skillhost approvals list|show|approve|reject`.
#include "cli/cli_context.hpp"
#include "cli/decision_commands.hpp"
#include "cli/in_process_resumer.hpp"
#include "app/instance_announcement.hpp"
#include "cli/operator_commands.hpp"
#include "cli/output.hpp"
#include "app/approval_actions.hpp"

#include <iostream>

namespace skillhost::cli {
namespace {

struct ApprovalArgs : DecisionArgs {
    std::string reason;
};

int run_approve(CliContext& ctx, const ApprovalArgs& a) {
    auto who = acting(ctx, a.user);
    if (!who) return fail_setup(who.error(), a.json);
    auto [host, user] = who.value();
    // Held while this process may execute the call: other instances judge its claim by it.
    auto announcement = app::InstanceAnnouncement::start(host->config());
    if (!announcement) return fail_operation(announcement.error(), a.json);
    InProcessResumer resumer(ctx, &op::Operator::resume_after_approval);
    auto resolution = app::approve_and_resume(*host, a.id, user, resumer.callback());
    announcement->reset();  // the outcome is recorded: retire
    if (!resolution) return fail_operation(resolution.error(), a.json);
    const decisions::ApprovalRecord& record = resolution->record;
    const exec::SkillResult& result = *resolution->call;
    if (a.json) {
        print_json(resolution->to_json());
        return result.ok ? kExitOk : kExitFailed;
    }
    if (result.ok) {
        std::cout << "Approved " << record.id << " and ran " << record.skill_id << " ("
                  << decisions::to_string(record.state) << "):\n";
        print_json(result.output);
    } else {
        std::cout << "Approved " << record.id << ", but " << record.skill_id << " failed ("
                  << decisions::to_string(record.state) << "):\n";
        print_error(result.error);
    }
    resumer.print(resolution->run);
    return result.ok ? kExitOk : kExitFailed;
}

int run_reject(CliContext& ctx, const ApprovalArgs& a) {
    auto who = acting(ctx, a.user);
    if (!who) return fail_setup(who.error(), a.json);
    auto [host, user] = who.value();
    InProcessResumer resumer(ctx, &op::Operator::resume_after_approval);
    auto resolution = app::reject_and_resume(*host, a.id, user, a.reason, resumer.callback());
    if (!resolution) return fail_operation(resolution.error(), a.json);
    if (a.json) {
        print_json(resolution->to_json());
        return kExitOk;
    }
    const decisions::ApprovalRecord& record = resolution->record;
    std::cout << "Rejected " << record.id << " (" << record.skill_id << "): " << record.reason << "\n";
    resumer.print(resolution->run);
    return kExitOk;
}

// `approvals list` and `approvals show`.
constexpr DecisionCommandTexts approval_texts{
    .kind = decisions::DecisionKind::approval,
    .show_help = "One approval with its arguments, state and result",
    .next_step = "approve ID   (or: skillhost approvals reject ID --reason TEXT)"};

}  // namespace

void register_approval_commands(CLI::App& app, CliContext& ctx) {
    auto* approvals = app.add_subcommand("approvals", "Calls waiting for approval: list, show, approve, reject");
    approvals->require_subcommand(1);
    add_list_and_show_commands<decisions::ApprovalRecord, decisions::ApprovalState, ApprovalArgs>(*approvals, ctx,
                                                                                                  approval_texts);

    add_decision_action(
        *approvals, ctx, std::make_shared<ApprovalArgs>(), decisions::DecisionKind::approval, "approve",
        "Approve and run the call now (arguments and policy are checked again first; runs at most once)", run_approve);
    auto ra = std::make_shared<ApprovalArgs>();
    auto* reject = add_decision_action(*approvals, ctx, ra, decisions::DecisionKind::approval, "reject",
                                       "Refuse the call; the requester sees the reason", run_reject);
    reject->add_option("--reason", ra->reason, "Why it is refused")->required();
}

}  // namespace skillhost::cli
