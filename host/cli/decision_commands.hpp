// What `skillhost approvals` and `skillhost elicitations` share, so the two kinds of pending
// decision look and behave alike: acting as a user, the options every subcommand takes, and the
// `list` and `show` output (JSON, or one summary line per decision and every field of one).
#pragma once

#include "app/decision_views.hpp"
#include "app/host_runtime.hpp"
#include "auth/user_context.hpp"
#include "base/error.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"

#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skillhost::cli {

// The arguments of every decision subcommand; each kind's own arguments derive from it.
struct DecisionArgs {
    std::string id;
    std::string user;
    bool all = false;
    bool json = false;
};

// The runtime and the user a subcommand acts as (--user, or the configured default user).
Result<std::pair<HostRuntime*, auth::UserContext>> acting(CliContext& ctx, const std::string& user);

// --user, --json and the global options.
void add_decision_options(CLI::App& command, CliContext& ctx, DecisionArgs& args);

// `run(host, user)` as the user `args` names (its exit code), or why nobody can act.
template <class Run>
int as_acting_user(CliContext& ctx, const DecisionArgs& args, Run run) {
    auto who = acting(ctx, args.user);
    if (!who) return fail_setup(who.error(), args.json);
    auto [host, user] = who.value();
    return run(*host, user);
}

// The words of `kind` the CLI uses: its command ("approvals") and what its ID argument is
// ("Approval id (apr-...)").
std::string command_of(decisions::DecisionKind kind);
std::string id_help(decisions::DecisionKind kind);
// `text` with its first "ID" replaced by `id`.
std::string with_id(std::string_view text, std::string_view id);
// "No pending approvals. (--all shows resolved ones too)"
std::string nothing_pending(decisions::DecisionKind kind);

// `<kind> <name> ID` (with --user, --json) reading into `args` and setting the exit code to
// `run(ctx, *args)`; returns the command, for its own options (which read into `args` too).
template <class Args, class Run>
CLI::App* add_decision_action(CLI::App& kind, CliContext& ctx, const std::shared_ptr<Args>& args,
                              decisions::DecisionKind decision_kind, const std::string& name, const std::string& help,
                              Run run) {
    auto* command = kind.add_subcommand(name, help);
    command->add_option("ID", args->id, id_help(decision_kind))->required();
    add_decision_options(*command, ctx, *args);
    command->callback([&ctx, args, run] { ctx.exit_code = run(ctx, *args); });
    return command;
}

// Prints a listing (each record's to_json() or summary_line()); the exit code.
template <class Record>
int print_decision_list(const Result<std::vector<Record>>& records, const DecisionArgs& args,
                        decisions::DecisionKind kind) {
    if (!records) return fail_operation(records.error(), args.json);
    if (args.json) {
        boost::json::array out;
        for (const auto& record : *records) out.push_back(record.to_json());
        print_json(boost::json::object{{command_of(kind), std::move(out)}});
        return kExitOk;
    }
    if (records->empty()) {
        std::cout << (args.all ? "No " + command_of(kind) + "." : nothing_pending(kind)) << "\n";
        return kExitOk;
    }
    for (const auto& record : *records) std::cout << record.summary_line() << "\n";
    return kExitOk;
}

// Prints one decision (its to_json() or to_text()) or the error; the exit code.
template <class Record>
int print_decision(const Result<Record>& record, const DecisionArgs& args) {
    if (!record) return fail_operation(record.error(), args.json);
    if (args.json)
        print_json(record->to_json());
    else
        std::cout << record->to_text();
    return kExitOk;
}

// What `<kind> list` and `<kind> show` say for a kind (the rest comes from its words and states).
struct DecisionCommandTexts {
    decisions::DecisionKind kind;
    std::string_view show_help;  // the `show` subcommand's description
    // Shown after a pending decision as "next: skillhost <command> <next_step>", its first "ID" the
    // decision's id.
    std::string_view next_step;
};

// "Include approved, executed, failed, rejected and expired ones": every state of `State` but pending.
template <decisions::KindState State>
std::string include_all_help() {
    std::vector<std::string_view> words = decisions::state_words<State>();
    std::erase(words, std::string_view(to_string(State::pending)));
    std::string help = "Include ";
    for (std::size_t i = 0; i < words.size(); ++i)
        help += std::string(i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + std::string(words[i]);
    return help + " ones";
}

// `<kind> list` (pending ones; every state with --all; --user narrows) and `<kind> show ID` for
// `Record`'s kind, whose states are `State`. `Args` is the kind's DecisionArgs.
template <class Record, class State, class Args>
void add_list_and_show_commands(CLI::App& kind, CliContext& ctx, const DecisionCommandTexts& texts) {
    auto la = std::make_shared<Args>();
    auto* list =
        kind.add_subcommand("list", "Pending " + command_of(texts.kind) + " (owners see everyone's; --user narrows)");
    list->add_flag("--all", la->all, include_all_help<State>());
    add_decision_options(*list, ctx, *la);
    list->callback([&ctx, la, texts] {
        ctx.exit_code = as_acting_user(ctx, *la, [&](HostRuntime& host, const auth::UserContext& user) {
            decisions::StateFilter<State> filter;
            if (!la->user.empty()) filter.user_id = user.user_id;
            if (!la->all) filter.states = {State::pending};
            filter.limit = 1000;
            return print_decision_list(app::list_decisions<Record>(host, user, filter), *la, texts.kind);
        });
    });

    add_decision_action(kind, ctx, std::make_shared<Args>(), texts.kind, "show", std::string(texts.show_help),
                        [texts](CliContext& context, const Args& a) {
                            return as_acting_user(context, a, [&](HostRuntime& host, const auth::UserContext& user) {
                                auto record = app::visible_decision<Record>(host, user, a.id);
                                const int exit_code = print_decision(record, a);
                                if (record && !a.json && record->state == State::pending)
                                    std::cout << "next: skillhost " << command_of(texts.kind) << " "
                                              << with_id(texts.next_step, record->id) << "\n";
                                return exit_code;
                            });
                        });
}

}  // namespace skillhost::cli
