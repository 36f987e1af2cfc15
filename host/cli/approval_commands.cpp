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

int run_list(CliContext& ctx, const ApprovalArgs& a) {
    auto who = acting(ctx, a.user);
    if (!who) return fail_setup(who.error(), a.json);
    auto [host, user] = who.value();
    decisions::ApprovalFilter filter;
    if (!a.user.empty()) filter.user_id = user.user_id;
    if (!a.all) filter.states = {decisions::ApprovalState::pending};
    filter.limit = 1000;
    return print_decision_list(app::list_approvals(*host, user, filter), a,
                               {"approvals", "No approvals.", "No pending approvals. (--all shows resolved ones too)"});
}

int run_show(CliContext& ctx, const ApprovalArgs& a) {
    auto who = acting(ctx, a.user);
    if (!who) return fail_setup(who.error(), a.json);
    auto [host, user] = who.value();
    return print_decision(app::visible_approval(*host, user, a.id), a);
}

int run_approve(CliContext& ctx, const ApprovalArgs& a) {
    auto who = acting(ctx, a.user);
    if (!who) return fail_setup(who.error(), a.json);
    auto [host, user] = who.value();
    // Held while this process may execute the call: other instances judge its claim by it.
    auto announcement = app::InstanceAnnouncement::start(host->config);
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

}  // namespace

void register_approval_commands(CLI::App& app, CliContext& ctx) {
    auto* approvals = app.add_subcommand("approvals", "Calls waiting for approval: list, show, approve, reject");
    approvals->require_subcommand(1);
    auto add_common = [&ctx](CLI::App* cmd, ApprovalArgs& a) { add_decision_options(*cmd, ctx, a); };

    auto la = std::make_shared<ApprovalArgs>();
    auto* list = approvals->add_subcommand("list", "Pending approvals (owners see everyone's; --user narrows)");
    list->add_flag("--all", la->all, "Include approved, executed, failed, rejected and expired ones");
    add_common(list, *la);
    list->callback([&ctx, la] { ctx.exit_code = run_list(ctx, *la); });

    auto sa = std::make_shared<ApprovalArgs>();
    auto* show = approvals->add_subcommand("show", "One approval with its arguments, state and result");
    show->add_option("ID", sa->id, "Approval id (apr-...)")->required();
    add_common(show, *sa);
    show->callback([&ctx, sa] { ctx.exit_code = run_show(ctx, *sa); });

    auto aa = std::make_shared<ApprovalArgs>();
    auto* approve = approvals->add_subcommand(
        "approve", "Approve and run the call now (arguments and policy are checked again first; runs at most once)");
    approve->add_option("ID", aa->id, "Approval id (apr-...)")->required();
    add_common(approve, *aa);
    approve->callback([&ctx, aa] { ctx.exit_code = run_approve(ctx, *aa); });

    auto ra = std::make_shared<ApprovalArgs>();
    auto* reject = approvals->add_subcommand("reject", "Refuse the call; the requester sees the reason");
    reject->add_option("ID", ra->id, "Approval id (apr-...)")->required();
    reject->add_option("--reason", ra->reason, "Why it is refused")->required();
    add_common(reject, *ra);
    reject->callback([&ctx, ra] { ctx.exit_code = run_reject(ctx, *ra); });
}

}  // namespace skillhost::cli
