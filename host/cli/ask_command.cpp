// `skillhost ask "GOAL" [--mode M] [--user U] [--stream] [--debug] [--json]`: one operator run.
#include "cli/operator_commands.hpp"
#include "cli/output.hpp"
#include "operator/observation_format.hpp"
#include "cli/error_codes.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <iostream>

namespace skillhost::cli {
namespace {

namespace json = boost::json;

struct AskArgs {
    std::string goal;
    std::string mode;
    std::string user;
    std::vector<std::string> history;
    bool stream = false;
    bool debug = false;
    bool json = false;
};

// --stream: one line per event as it happens, on stderr so stdout keeps only the answer.
// With --debug it also prints each planner response and the prompt size.
class StreamPrinter final : public op::RunEventSubscriber {
public:
    explicit StreamPrinter(bool debug) : debug_(debug) {}
    void on_event(const op::RunEvent& event) override {
        std::string text = event.text;
        if (text.size() > 400) text = text.substr(0, 400) + "...";
        std::cerr << "[" << op::to_string(event.type) << "] " << text << "\n";
        if (!debug_) return;
        if (const auto* chars = event.data.if_contains("prompt_chars")) {
            std::cerr << "  prompt: " << json::serialize(*chars)
                      << " chars; planner said: " << json::serialize(event.data.at("planner_response")) << "\n";
        }
    }

private:
    bool debug_;
};

int run_ask(CliContext& ctx, const AskArgs& a) {
    auto runtime = make_operator_runtime(ctx);
    if (!runtime) return fail_setup(runtime.error(), a.json);
    OperatorRuntime& rt = runtime.value();
    auto user = rt.host->user(a.user);
    if (!user) return fail_setup(user.error(), a.json);
    auth::UserContext context = user.value();
    if (!a.mode.empty()) {
        auto mode = auth::parse_cognitive_mode(a.mode);
        if (!mode) {
            Error e{errors::kInvalidMode, "--mode must be dual, agent or emulation, not '" + a.mode + "'", {}, {}};
            e.details["mode"] = a.mode;
            return fail_setup(e, a.json);
        }
        context.mode = *mode;
    }
    StreamPrinter printer(a.debug);
    op::RunOptions options;
    options.history = a.history;
    auto run = rt.op->run(a.goal, context, options, a.stream || a.debug ? &printer : nullptr);
    if (!run) return fail_setup(run.error(), a.json);
    if (a.debug) {
        const auto view = rt.op->planner_catalog(*rt.host->snapshot(), context);
        std::cerr << "--- catalog used (" << view->text.size() << " chars, ~" << view->text.size() / 4 << " tokens)\n"
                  << view->text << "\n";
        std::filesystem::path dir =
            rt.op->config().dump_dir.empty() ? rt.host->config().home / "runs" : rt.op->config().dump_dir;
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        const auto file = dir / (run->id + ".json");
        json::object dump = run->to_json();
        dump["catalog"] = view->text;
        std::ofstream out(file);
        out << op::render_pretty_json(dump) << "\n";
        std::cerr << "--- dump written to " << file.string() << "\n";
    }
    if (a.json) {
        print_json(run->to_json());
    } else {
        print_run(run.value(), a.debug);
    }
    switch (run->status) {
        case store::RunStatus::completed: return kExitOk;
        default: return kExitFailed;
    }
}

}  // namespace

Result<OperatorRuntime> make_operator_runtime(CliContext& ctx) {
    auto host = ctx.runtime();
    if (!host) return host.error();
    return app::make_operator_runtime(*host.value());
}

void print_run(const store::Run& run, bool debug) {
    if (debug) {
        for (const auto& step : run.steps) {
            std::cout << "Step " << step.step << ": " << step.thought << "\n";
            if (step.action)
                std::cout << "  action: " << step.action->tool << " " << json::serialize(step.action->args) << "\n";
            for (const auto& w : step.warnings) std::cout << "  warning: " << w << "\n";
            if (step.observation) {
                std::cout << "  observation (" << store::to_string(step.observation->mode) << ", "
                          << (step.observation->success ? "ok" : "failed") << "):\n";
                std::string content = step.observation->content;
                std::size_t start = 0;
                while (start < content.size()) {
                    auto end = content.find('\n', start);
                    std::cout << "    " << content.substr(start, end - start) << "\n";
                    if (end == std::string::npos) break;
                    start = end + 1;
                }
            }
        }
        for (const auto& [role, usage] : run.tokens) {
            std::cout << "tokens " << role << ": " << usage.prompt << " prompt, " << usage.completion << " completion, "
                      << usage.calls << " calls\n";
        }
        std::cout << "---\n";
    }
    switch (run.status) {
        case store::RunStatus::completed:
            std::cout << run.answer << "\n";
            if (run.grounding.checked && !run.grounding.passed) {
                std::cerr
                    << "note: the model's answer contained data not in any observation; showing the data instead\n";
            }
            break;
        case store::RunStatus::awaiting_approval:
            std::cout << "Run " << run.id << " is waiting for approval " << run.approval_id << ".\n"
                      << "Approve it with `skillhost approvals approve " << run.approval_id
                      << "` (or reject it); the run then resumes.\n";
            break;
        case store::RunStatus::awaiting_input: {
            const auto* asked = run.error ? run.error->details.if_contains("message") : nullptr;
            std::cout << "Run " << run.id << " waits for your answer to elicitation " << run.elicitation_id;
            if (asked && asked->is_string()) std::cout << ": " << std::string_view(asked->as_string());
            std::cout << "\nAnswer with `skillhost elicitations answer " << run.elicitation_id
                      << " --field NAME=VALUE` (`skillhost elicitations show " << run.elicitation_id
                      << "` lists the fields), or --decline; the step then runs again and the run resumes.\n";
            break;
        }
        case store::RunStatus::needs_guidance:
            if (run.error) print_error(*run.error);
            std::cout << "Run " << run.id << " needs guidance: skillhost guide " << run.id << " \"what to do\"\n";
            break;
        default:
            if (run.error)
                print_error(*run.error);
            else
                std::cout << "Run " << run.id << " ended " << store::to_string(run.status) << "\n";
    }
}

void register_operator_commands(CLI::App& app, CliContext& ctx) {
    auto a = std::make_shared<AskArgs>();
    auto* ask = app.add_subcommand("ask",
                                   "Ask the operator: it plans, calls skills through policy, and answers from "
                                   "what they returned");
    ask->add_option("GOAL", a->goal, "What you want, in your own words")->required();
    ask->add_option("--mode", a->mode, "Cognitive mode for this run: dual, agent or emulation");
    ask->add_option("--user", a->user, "Act as this user (default: the configured default user)");
    ask->add_option(
           "--history", a->history,
           "An earlier turn of the conversation, oldest first; repeat for several (\"User: ...\", \"Assistant: ...\")")
        ->type_name("TEXT");
    ask->add_flag("--stream", a->stream, "Print thoughts, actions and observations as they happen (stderr)");
    ask->add_flag("--debug", a->debug, "Print the scratchpad, the catalog and token use, and write a JSON dump");
    ask->add_flag("--json", a->json, "Print the whole run record as JSON");
    ctx.add_global_options(*ask);
    ask->footer(
        "Example: skillhost ask \"What tasks do I have?\"\n"
        "         skillhost ask \"And the overdue ones?\" --history \"User: What tasks do I have?\"");
    ask->callback([&ctx, a] { ctx.exit_code = run_ask(ctx, *a); });
    register_runs_commands(app, ctx);
}

}  // namespace skillhost::cli
