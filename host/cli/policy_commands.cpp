// `skillhost policy explain SKILL [--args JSON] [--user U]` and `skillhost mode show|set`.
#include "base/json_text.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "exec/argument_validation.hpp"
#include "cli/error_codes.hpp"
#include "plugin/error_codes.hpp"

#include <iostream>

namespace skillhost::cli {
namespace {

// What the skill's plugin may touch (its manifest) and how it runs (the host's configuration):
// policy decides whether a call runs, these decide what the running code can reach.
boost::json::object plugin_grants(const plugin::LoadedPlugin& plugin) {
    const manifest::Permissions& p = plugin.manifest().permissions;
    return {{"workspace", manifest::to_string(p.workspace)},
            {"network", p.network},
            {"llm", p.llm},
            {"declared", p.declared},
            {"isolation", plugin.isolated() ? "process" : "in_process"}};
}

std::string plugin_grants_text(const plugin::LoadedPlugin& plugin) {
    const manifest::Permissions& p = plugin.manifest().permissions;
    return "plugin '" + plugin.manifest().name + "' permissions (manifest): workspace " +
           std::string(manifest::to_string(p.workspace)) + ", network " + (p.network ? "yes" : "no") + ", llm " +
           (p.llm ? "yes" : "no") + (p.declared ? "" : " (not declared)") + "; runs " +
           (plugin.isolated() ? "in its own sandboxed process" : "in the host process") + "\n";
}

struct ExplainArgs {
    std::string skill;
    std::string args = "{}";
    std::string user;
    bool json = false;
};

int run_explain(CliContext& ctx, const ExplainArgs& a) {
    boost::json::value args;
    std::string problem;
    if (!parse_json(a.args, args, problem)) {
        return fail_setup(Error{errors::kInvalidArgsJson,
                                "--args is not valid JSON: " + problem,
                                {},
                                {"quote the JSON for your shell, e.g. --args '{\"path\":\"notes/a.md\"}'"}},
                          a.json);
    }
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), a.json);
    HostRuntime& host = *rt.value();
    auto user = host.user(a.user);
    if (!user) return fail_setup(user.error(), a.json);
    const auto snapshot = host.snapshot();
    const auto* entry = snapshot->find(a.skill);
    if (!entry) {
        Error e{errors::kSkillNotFound,
                "no skill named '" + a.skill + "' is loaded, so policy has nothing to decide",
                {},
                {"run `skillhost skills list` to see the loaded skills"}};
        if (a.json) print_error_json(e);
        print_error(e);
        return kExitFailed;
    }
    // Policy sees what the skill would see: validated arguments with defaults applied.
    auto prepared = exec::prepare_arguments(entry->spec->id, entry->spec->inputs, args);
    const boost::json::value& decided_on = prepared ? prepared.value() : args;
    auto explanation = host.explain(user.value(), *entry->spec, decided_on);
    if (a.json) {
        boost::json::object out = explanation.to_json();
        if (!prepared) out["arguments_error"] = prepared.error().to_json();
        out["plugin_permissions"] = plugin_grants(*entry->plugin);
        print_json(out);
        return kExitOk;
    }
    if (!prepared)
        std::cout << "note: these arguments would be refused before policy runs: " << prepared.error().message
                  << "\n\n";
    std::cout << explanation.to_text();
    if (!explanation.to_text().empty() && explanation.to_text().back() != '\n') std::cout << "\n";
    std::cout << plugin_grants_text(*entry->plugin);
    return kExitOk;
}

struct ModeArgs {
    std::string mode;
    std::string user;
    bool json = false;
};

int run_mode_show(CliContext& ctx, const ModeArgs& a) {
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), a.json);
    auto user = rt.value()->user(a.user);
    if (!user) return fail_setup(user.error(), a.json);
    auto stored = rt.value()->stored_mode(user->user_id);
    if (!stored) return fail_setup(stored.error(), a.json);
    const char* source = stored.value() ? "set with `skillhost mode set`" : "default from users.yaml";
    if (a.json) {
        print_json(boost::json::object{
            {"user", user->user_id}, {"mode", auth::to_string(user->mode)}, {"stored", stored.value().has_value()}});
    } else {
        std::cout << user->user_id << ": " << auth::to_string(user->mode) << " (" << source << ")\n";
    }
    return kExitOk;
}

int run_mode_set(CliContext& ctx, const ModeArgs& a) {
    auto mode = auth::parse_cognitive_mode(a.mode);
    if (!mode) {
        return fail_setup(Error{errors::kInvalidMode,
                                "unknown cognitive mode '" + a.mode + "'",
                                {},
                                {"use one of: dual, agent, emulation (emulation is read-only)"}},
                          a.json);
    }
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), a.json);
    auto user = rt.value()->user(a.user);
    if (!user) return fail_setup(user.error(), a.json);
    if (auto st = rt.value()->set_mode(user->user_id, *mode); !st) return fail_setup(st.error(), a.json);
    if (a.json)
        print_json(boost::json::object{{"user", user->user_id}, {"mode", auth::to_string(*mode)}});
    else
        std::cout << user->user_id << ": mode set to " << auth::to_string(*mode) << "\n";
    return kExitOk;
}

}  // namespace

void register_policy_commands(CLI::App& app, CliContext& ctx) {
    auto* pol = app.add_subcommand("policy", "Inspect policy decisions");
    pol->require_subcommand(1);
    auto ea = std::make_shared<ExplainArgs>();
    auto* explain =
        pol->add_subcommand("explain", "Which policy step (mode, rules, trust, approval) decides a call, and why");
    explain->add_option("SKILL", ea->skill, "Skill id")->required();
    explain->add_option("--args", ea->args, "Arguments as a JSON object")->capture_default_str();
    explain->add_option("--user", ea->user, "The user the call would run for (default: the configured default user)");
    explain->add_flag("--json", ea->json, "Machine-readable output");
    ctx.add_global_options(*explain);
    explain->callback([&ctx, ea] { ctx.exit_code = run_explain(ctx, *ea); });
}

void register_mode_commands(CLI::App& app, CliContext& ctx) {
    auto* mode = app.add_subcommand("mode", "A user's cognitive mode: dual, agent or emulation (read-only)");
    mode->require_subcommand(1);
    auto sa = std::make_shared<ModeArgs>();
    auto* show = mode->add_subcommand("show", "The user's current mode and where it comes from");
    show->add_option("--user", sa->user, "Which user (default: the configured default user)");
    show->add_flag("--json", sa->json, "Machine-readable output");
    ctx.add_global_options(*show);
    show->callback([&ctx, sa] { ctx.exit_code = run_mode_show(ctx, *sa); });

    auto ta = std::make_shared<ModeArgs>();
    auto* set = mode->add_subcommand("set", "Persist a mode for the user (overrides users.yaml's default_mode)");
    set->add_option("MODE", ta->mode, "dual | agent | emulation")->required();
    set->add_option("--user", ta->user, "Which user (default: the configured default user)");
    set->add_flag("--json", ta->json, "Machine-readable output");
    ctx.add_global_options(*set);
    set->callback([&ctx, ta] { ctx.exit_code = run_mode_set(ctx, *ta); });
}

}  // namespace skillhost::cli
