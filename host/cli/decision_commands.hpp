// What `skillhost approvals` and `skillhost elicitations` share, so the two kinds of pending
// decision look and behave alike: acting as a user, the options every subcommand takes, and the
// `list` and `show` output (JSON, or one summary line per decision and every field of one).
#pragma once

#include "app/host_runtime.hpp"
#include "auth/user_context.hpp"
#include "base/error.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"

#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>

#include <iostream>
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

// What `list` says for a kind: its JSON key ("approvals") and its empty listings.
struct DecisionListTexts {
    std::string_view json_key;
    std::string_view none;          // with --all
    std::string_view none_pending;  // without
};

// Prints a listing (each record's to_json() or summary_line()); the exit code.
template <class Record>
int print_decision_list(const Result<std::vector<Record>>& records, const DecisionArgs& args,
                        const DecisionListTexts& texts) {
    if (!records) return fail_operation(records.error(), args.json);
    if (args.json) {
        boost::json::array out;
        for (const auto& record : *records) out.push_back(record.to_json());
        print_json(boost::json::object{{texts.json_key, std::move(out)}});
        return kExitOk;
    }
    if (records->empty()) {
        std::cout << (args.all ? texts.none : texts.none_pending) << "\n";
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

}  // namespace skillhost::cli
