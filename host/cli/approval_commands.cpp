// `skillhost approvals list|show|approve|reject`.
#include "cli/cli_context.hpp"
#include "cli/in_process_resumer.hpp"
#include "app/instance_announcement.hpp"
#include "cli/operator_commands.hpp"
#include "cli/output.hpp"
#include "app/approval_actions.hpp"
#include "base/utc_time.hpp"

#include <iostream>

namespace skillhost::cli {
namespace {

struct ApprovalArgs {
    std::string id;
    std::string user;
    std::string reason;
    bool all = false;
    bool json = false;
};

std::string short_time(TimePoint t) {
    return format_utc_timestamp(t).substr(0, 19);
}

void print_record_line(const decisions::ApprovalRecord& r) {
    std::cout << r.id << "  " << decisions::to_string(r.state) << "  " << r.user_id << "  " << r.skill_id << "  "
              << short_time(r.requested_at) << "  " << r.preview << "\n";
}

void print_record(const decisions::ApprovalRecord& r) {
    std::cout << "id:           " << r.id << "\n"
              << "state:        " << decisions::to_string(r.state) << "\n"
              << "user:         " << r.user_id << "\n"
              << "skill:        " << r.skill_id << "\n"
              << "preview:      " << r.preview << "\n"
              << "arguments:    " << boost::json::serialize(r.arguments) << "\n"
              << "requested:    " << format_utc_timestamp(r.requested_at) << " by " << r.requested_by.to_text() << "\n"
              << "expires:      " << format_utc_timestamp(r.expires_at) << "\n";
    if (!r.resolved_by.empty()) std::cout << "resolved by:  " << r.resolved_by << "\n";
    if (!r.reason.empty()) std::cout << "reason:       " << r.reason << "\n";
    if (!r.result.is_null()) std::cout << "result:       " << boost::json::serialize(r.result) << "\n";
}

Result<std::pair<HostRuntime*, auth::UserContext>> acting(CliContext& ctx, const std::string& user) {
    auto rt = ctx.runtime();
    if (!rt) return rt.error();
    auto u = rt.value()->user(user);
    if (!u) return u.error();
    return std::make_pair(rt.value(), u.value());
}

int run_list(CliContext& ctx, const ApprovalArgs& a) {
    auto who = acting(ctx, a.user);
    if (!who) return fail_setup(who.error(), a.json);
    auto [host, user] = who.value();
    decisions::ApprovalFilter filter;
    if (user.role != auth::Role::owner || !a.user.empty()) filter.user_id = user.user_id;
    if (!a.all) filter.states = {decisions::ApprovalState::pending};
    auto records = app::list_approvals(*host, user, filter);
    if (!records) return fail_operation(records.error(), a.json);
    if (a.json) {
        boost::json::array arr;
        for (const auto& r : records.value()) arr.push_back(r.to_json());
        print_json(boost::json::object{{"approvals", std::move(arr)}});
        return kExitOk;
    }
    if (records->empty()) {
        std::cout << (a.all ? "No approvals.\n" : "No pending approvals. (--all shows resolved ones too)\n");
        return kExitOk;
    }
    for (const auto& r : records.value()) print_record_line(r);
    return kExitOk;
}

int run_show(CliContext& ctx, const ApprovalArgs& a) {
    auto who = acting(ctx, a.user);
    if (!who) return fail_setup(who.error(), a.json);
    auto [host, user] = who.value();
    auto r = app::visible_approval(*host, user, a.id);
    if (!r) return fail_operation(r.error(), a.json);
    if (a.json)
        print_json(r->to_json());
    else
        print_record(r.value());
    return kExitOk;
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
    auto add_common = [&ctx](CLI::App* cmd, ApprovalArgs& a) {
        cmd->add_option("--user", a.user, "Act as this user (default: the configured default user)");
        cmd->add_flag("--json", a.json, "Machine-readable output");
        ctx.add_global_options(*cmd);
    };

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
