// `skillhost runs list`, `skillhost runs show ID [--json]`, `skillhost runs resume ID` and
// `skillhost guide RUN_ID "TEXT"`.
#include "cli/operator_commands.hpp"
#include "cli/output.hpp"
#include "cli/error_codes.hpp"

#include <boost/json.hpp>

#include <ctime>
#include <iomanip>
#include <iostream>

namespace skillhost::cli {
namespace {

struct RunsArgs {
    std::string id;
    std::string text;
    std::string user;
    std::string status;
    std::size_t limit = 20;
    bool json = false;
    bool debug = false;
};

std::string local_time(std::int64_t unix_ms) {
    const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

int list_runs(CliContext& ctx, const RunsArgs& a) {
    auto rt = make_operator_runtime(ctx);
    if (!rt) return fail_setup(rt.error(), a.json);
    store::RunFilter filter;
    filter.limit = a.limit;
    if (!a.user.empty()) filter.user_id = a.user;
    if (!a.status.empty()) {
        filter.status = store::parse_run_status(a.status);
        if (!filter.status) {
            Error e{errors::kInvalidStatus,
                    "--status must be running, completed, awaiting_approval, awaiting_input, needs_guidance, failed, "
                    "cancelled or interrupted",
                    {},
                    {}};
            e.details["status"] = a.status;
            return fail_setup(e, a.json);
        }
    }
    auto runs = rt->runs->list(filter);
    if (!runs) return fail_setup(runs.error(), a.json);
    if (a.json) {
        boost::json::array out;
        for (const auto& run : runs.value()) {
            out.push_back(boost::json::object{{"id", run.id},
                                              {"goal", run.goal},
                                              {"user", run.user_id},
                                              {"mode", run.mode},
                                              {"status", store::to_string(run.status)},
                                              {"steps", run.steps.size()},
                                              {"created_ms", run.created_ms}});
        }
        print_json(out);
        return kExitOk;
    }
    if (runs->empty()) {
        std::cout << "No runs yet. Start one with: skillhost ask \"What tasks do I have?\"\n";
        return kExitOk;
    }
    std::cout << std::left << std::setw(22) << "ID" << std::setw(20) << "STARTED" << std::setw(10) << "USER"
              << std::setw(19) << "STATUS" << std::setw(6) << "STEPS"
              << "GOAL\n";
    for (const auto& run : runs.value()) {
        std::string goal = run.goal.size() > 60 ? run.goal.substr(0, 57) + "..." : run.goal;
        std::cout << std::left << std::setw(22) << run.id << std::setw(20) << local_time(run.created_ms)
                  << std::setw(10) << run.user_id << std::setw(19) << store::to_string(run.status) << std::setw(6)
                  << run.steps.size() << goal << "\n";
    }
    return kExitOk;
}

int show_run(CliContext& ctx, const RunsArgs& a) {
    auto rt = make_operator_runtime(ctx);
    if (!rt) return fail_setup(rt.error(), a.json);
    auto run = rt->runs->get(a.id);
    if (!run) return fail_setup(run.error(), a.json);
    if (a.json) {
        print_json(run->to_json());
        return kExitOk;
    }
    std::cout << "run " << run->id << " (" << store::to_string(run->status) << ", attempt " << run->attempt << ")\n"
              << "goal: " << run->goal << "\nuser: " << run->user_id << "  mode: " << run->mode
              << "  route: " << run->route << "\nstarted: " << local_time(run->created_ms) << "\n";
    print_run(run.value(), true);
    return kExitOk;
}

int finish(const Result<store::Run>& run, bool json) {
    if (!run) return fail_setup(run.error(), json);
    if (json)
        print_json(run->to_json());
    else
        print_run(run.value(), false);
    return run->status == store::RunStatus::completed ? kExitOk : kExitFailed;
}

int resume_run(CliContext& ctx, const RunsArgs& a) {
    auto rt = make_operator_runtime(ctx);
    if (!rt) return fail_setup(rt.error(), a.json);
    return finish(rt->op->resume(a.id), a.json);
}

int guide_run(CliContext& ctx, const RunsArgs& a) {
    auto rt = make_operator_runtime(ctx);
    if (!rt) return fail_setup(rt.error(), a.json);
    return finish(rt->op->guide(a.id, a.text), a.json);
}

}  // namespace

void register_runs_commands(CLI::App& app, CliContext& ctx) {
    auto* runs = app.add_subcommand("runs", "Operator runs: list them, show one step by step, resume after approval");
    runs->require_subcommand(1);
    ctx.add_global_options(*runs);

    auto list_args = std::make_shared<RunsArgs>();
    auto* list = runs->add_subcommand("list", "Recent runs, newest first");
    list->add_option("--user", list_args->user, "Only this user's runs");
    list->add_option("--status", list_args->status, "Only runs with this status (e.g. needs_guidance)");
    list->add_option("--limit", list_args->limit, "At most this many runs")->capture_default_str();
    list->add_flag("--json", list_args->json, "Print JSON");
    ctx.add_global_options(*list);
    list->callback([&ctx, list_args] { ctx.exit_code = list_runs(ctx, *list_args); });

    auto show_args = std::make_shared<RunsArgs>();
    auto* show = runs->add_subcommand("show", "One run: its steps, observations, answer, timings and token use");
    show->add_option("ID", show_args->id, "Run id")->required();
    show->add_flag("--json", show_args->json, "Print the whole run record as JSON");
    ctx.add_global_options(*show);
    show->callback([&ctx, show_args] { ctx.exit_code = show_run(ctx, *show_args); });

    auto resume_args = std::make_shared<RunsArgs>();
    auto* resume = runs->add_subcommand(
        "resume",
        "Continue a run whose approval was approved or rejected, whose question was answered, or an interrupted run "
        "from its last saved step");
    resume->add_option("ID", resume_args->id, "Run id")->required();
    resume->add_flag("--json", resume_args->json, "Print the run record as JSON");
    ctx.add_global_options(*resume);
    resume->callback([&ctx, resume_args] { ctx.exit_code = resume_run(ctx, *resume_args); });

    auto guide_args = std::make_shared<RunsArgs>();
    auto* guide =
        app.add_subcommand("guide", "Help a stuck run: your advice resumes it and is remembered for similar goals");
    guide->add_option("RUN_ID", guide_args->id, "The run that needs guidance")->required();
    guide->add_option("TEXT", guide_args->text, "What the operator should do differently")->required();
    guide->add_flag("--json", guide_args->json, "Print the run record as JSON");
    ctx.add_global_options(*guide);
    guide->footer("Example: skillhost guide run-1a2b3c4d5e6f7a8b \"the notes are in docs/notes.md\"");
    guide->callback([&ctx, guide_args] { ctx.exit_code = guide_run(ctx, *guide_args); });
}

}  // namespace skillhost::cli
