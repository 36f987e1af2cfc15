// `skillhost plugin check MANIFEST`: the author's conformance check. Loads the plugin exactly as the
// host does, then calls every skill with its manifest examples and with generated invalid arguments.
#include "plugin/isolation_config.hpp"
#include "catalog/catalog_render.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "cli/scratch_dir.hpp"
#include "llm/model_router.hpp"
#include "app/chat_backends.hpp"
#include "app/plugin_storage_service.hpp"
#include "app/router_completion_service.hpp"
#include "manifest/foreign_server.hpp"
#include "manifest/manifest.hpp"
#include "exec/error_codes.hpp"
#include "plugin/error_codes.hpp"

#include <boost/json/serialize.hpp>

#include <filesystem>
#include <iostream>
#include <variant>

namespace skillhost::cli {
namespace {

struct Check {
    std::string name;
    std::string skill;
    bool ok = false;
    std::string detail;
};

class CheckReport {
public:
    explicit CheckReport(bool json) : json_(json) {}
    void add(Check c) {
        if (!json_) {
            std::cout << (c.ok ? "PASS  " : "FAIL  ") << c.name;
            if (!c.skill.empty()) std::cout << " [" << c.skill << "]";
            if (!c.detail.empty()) std::cout << ": " << c.detail;
            std::cout << "\n";
        }
        checks_.push_back(std::move(c));
    }
    int failed() const {
        int n = 0;
        for (const auto& c : checks_) n += c.ok ? 0 : 1;
        return n;
    }
    int finish(const std::string& manifest_file) const {
        int bad = failed();
        int good = static_cast<int>(checks_.size()) - bad;
        if (json_) {
            boost::json::object out;
            out["manifest"] = manifest_file;
            boost::json::array arr;
            for (const auto& c : checks_)
                arr.push_back({{"check", c.name}, {"skill", c.skill}, {"ok", c.ok}, {"detail", c.detail}});
            out["checks"] = std::move(arr);
            out["passed"] = good;
            out["failed"] = bad;
            print_json(out);
        } else {
            std::cout << "plugin check: " << good << " checks passed, " << bad << " failed\n";
        }
        return bad == 0 ? kExitOk : kExitFailed;
    }

private:
    bool json_;
    std::vector<Check> checks_;
};

// A value of the wrong JSON type for a schema, to probe the plugin's own argument handling.
boost::json::value wrong_type_for(manifest::SchemaType t) {
    switch (t) {
        case manifest::SchemaType::string: return 42;
        case manifest::SchemaType::integer:
        case manifest::SchemaType::number: return "not a number";
        case manifest::SchemaType::boolean: return "yes";
        case manifest::SchemaType::array: return boost::json::object{{"not", "an array"}};
        case manifest::SchemaType::object: return boost::json::array{1, 2};
        default: return boost::json::array{};
    }
}

// A raw outcome is well-formed if it is valid JSON or a coded error with a message.
std::string raw_outcome_problem(const plugin::RawOutcome& o) {
    using W = plugin::RawOutcome::Written;
    if (o.written == W::nothing) return "returned without writing a result or an error";
    if (o.written == W::error) {
        // The runner died: the skill crashed (or ignored its deadline), whatever it would have said.
        if (o.error_code == errors::kPluginCrashed.name || o.error_code == errors::kPluginKilled.name)
            return o.error_message;
        if (o.error_code.empty()) return "wrote an error with an empty code";
        if (o.error_message.empty()) return "wrote error " + o.error_code + " with an empty message";
        return {};
    }
    boost::system::error_code ec;
    (void)boost::json::parse(o.result_json, ec);
    if (ec) return "wrote a result that is not valid JSON: " + o.result_json.substr(0, 80);
    return {};
}

// One FAIL per field of an example's result that breaks the declared `outputs`, so an author sees
// every mismatch in one run (the executor lists up to 20; a last line counts the rest).
void report_broken_outputs(CheckReport& report, const std::string& skill, const std::string& label,
                           const Error& error) {
    const std::string check = label + " result matches outputs";
    const auto* problems = error.details.if_contains("problems");
    if (problems == nullptr || !problems->is_array() || problems->as_array().empty()) {
        report.add({check, skill, false, error.code + ": " + error.message});
        return;
    }
    std::size_t listed = 0;
    for (const auto& item : problems->as_array()) {
        const auto* problem = item.if_object();
        if (!problem) continue;
        const auto* path = problem->if_contains("path");
        const auto* message = problem->if_contains("message");
        report.add({check, skill, false,
                    std::string(path && path->is_string() ? path->as_string() : "result") + ": " +
                        std::string(message && message->is_string() ? message->as_string() : "")});
        ++listed;
    }
    const auto* count = error.details.if_contains("problem_count");
    if (count && count->is_number()) {
        const auto total = count->to_number<std::size_t>();
        if (total > listed)
            report.add({check, skill, false,
                        "and " + std::to_string(total - listed) + " more problems like these (fix these first)"});
    }
}

void check_skill(CheckReport& report, exec::Executor& executor, const catalog::CatalogSnapshot& snap,
                 const catalog::CatalogEntry& entry, const plugin::Call& caller, const exec::CallOptions& options) {
    const auto& spec = *entry.spec;
    if (spec.examples.empty()) {
        report.add(
            {"examples", spec.id, false, "no examples: add at least one (planners and `plugin check` use them)"});
    }
    for (std::size_t i = 0; i < spec.examples.size(); ++i) {
        const auto& ex = spec.examples[i];
        auto r = executor.call(snap, spec.id, ex.args, caller, options);
        std::string label =
            "example " + std::to_string(i + 1) + (ex.description.empty() ? "" : " (" + ex.description + ")");
        if (!r.ok && r.error.is(errors::kPluginInvalidResult)) {
            report_broken_outputs(report, spec.id, label, r.error);
            continue;
        }
        report.add(
            {label, spec.id, r.ok,
             r.ok ? "ok" : r.error.code + ": " + r.error.message + " — args " + boost::json::serialize(ex.args)});
    }

    // The host must reject what the schema forbids before the plugin sees it.
    auto unknown = executor.call(snap, spec.id, boost::json::object{{"__not_a_field__", 1}}, caller, options);
    report.add({"rejects unknown field", spec.id, !unknown.ok && unknown.error.is(errors::kInvalidArgs),
                unknown.ok ? "the call succeeded" : unknown.error.code.str()});
    for (const auto& [name, prop] : spec.inputs.properties) {
        boost::json::object bad;
        bad[name] = wrong_type_for(prop.type);
        if (prop.type == manifest::SchemaType::any) continue;
        auto r = executor.call(snap, spec.id, bad, caller, options);
        report.add({"rejects wrong type for '" + name + "'", spec.id, !r.ok && r.error.is(errors::kInvalidArgs),
                    r.ok ? "the call succeeded" : r.error.code.str()});
    }

    // The plugin itself must answer garbage with a well-formed error, not a crash or silence.
    std::vector<std::string> probes{"{}", "[]", "null", "{\"__not_a_field__\":true}"};
    boost::json::object all_wrong;
    for (const auto& [name, prop] : spec.inputs.properties) all_wrong[name] = wrong_type_for(prop.type);
    probes.push_back(boost::json::serialize(all_wrong));
    int n = 0;
    for (const auto& probe : probes) {
        plugin::CallControl control;
        plugin::Call cc;
        cc.skill_id = spec.id;
        cc.call_id = "check-" + std::to_string(++n);
        cc.user_id = caller.user_id;
        cc.data_dir = options.users_dir / caller.user_id / "plugins" / entry.plugin->manifest().name;
        cc.workspace_root = caller.workspace_root;
        cc.control = &control;
        // A skill that never returns is killed by its runner's supervisor after the deadline.
        cc.deadline_unix_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch() +
                                                                  std::chrono::milliseconds(spec.timeout_ms))
                .count();
        auto outcome = entry.plugin->invoke(cc, probe);
        std::string problem = raw_outcome_problem(outcome);
        report.add({"handles raw invalid args " + probe.substr(0, 40), spec.id, problem.empty(),
                    problem.empty()
                        ? (outcome.written == plugin::RawOutcome::Written::error ? outcome.error_code : "result")
                        : problem});
    }
}

// One FAIL line per manifest problem, so an author fixes them all in one round instead of one per run.
void report_manifest_problems(CheckReport& report, const Error& error) {
    const auto* problems = error.details.if_contains("problems");
    if (problems == nullptr || !problems->is_array() || problems->as_array().empty()) {
        report.add({"manifest", "", false, error.code + ": " + error.message});
        return;
    }
    for (const auto& item : problems->as_array()) {
        const auto& p = item.as_object();
        manifest::ManifestProblem problem;
        problem.file = std::string(p.at("file").as_string());
        problem.line = static_cast<int>(p.at("line").to_number<std::int64_t>());
        problem.column = static_cast<int>(p.at("column").to_number<std::int64_t>());
        problem.field = std::string(p.at("field").as_string());
        problem.message = std::string(p.at("message").as_string());
        report.add({"manifest", "", false, problem.to_string()});
    }
}

// A foreign MCP server's declaration: read, start the server, list its tools and show the skills
// they become. No tool is called: a foreign tool may act on the world, and the check cannot know.
int check_foreign_server(const manifest::ForeignServer& server, const std::string& file, CheckReport& report,
                         const config::HostConfig& config) {
    report.add({"declaration", "", true,
                "MCP server '" + server.name + "' over " + std::string(manifest::to_string(server.transport)) +
                    (server.command.empty() ? "" : ", command " + server.command)});
    auto scratch = ScratchDir::create("skillhost-check");
    if (!scratch) {
        report.add({"start", "", false, scratch.error().message});
        return report.finish(file);
    }
    // Started as the host would start it: in the sandbox skillhost.yaml sets.
    plugin::LoaderOptions options{scratch->path() / "plugin-cache", {}};
    options.isolation = plugin::isolation_options(config);
    options.packages_dir = config.packages_dir;  // a declared package runs from its verified install
    plugin::PluginLoader loader(options);
    auto loaded = loader.load_foreign(server);
    if (!loaded) {
        report.add({"start", "", false, loaded.error().code + ": " + loaded.error().message});
        return report.finish(file);
    }
    const auto& skills = loaded.value()->manifest().skills;
    report.add(
        {"start", "", true,
         "initialize and tools/list answered, " + std::to_string(skills.size()) + " tools offered as skills" +
             (loaded.value()->version().empty() ? "" : ", server version " + std::string(loaded.value()->version()))});
    const boost::json::object sandbox = loaded.value()->sandbox();
    const auto said = [&sandbox](const char* key) {
        const auto* value = sandbox.if_contains(key);
        return value == nullptr     ? std::string("-")
               : value->is_string() ? std::string(value->get_string())
                                    : boost::json::serialize(*value);
    };
    report.add({"sandbox", "", true,
                sandbox.empty()
                    ? std::string("off (isolation.sandbox in skillhost.yaml)")
                    : "mode " + said("mode") + "; namespaces: " + said("namespaces") + "; landlock ABI " +
                          said("landlock_abi") + "; seccomp " + said("seccomp") + "; exec: " + said("exec")});
    for (const auto& spec : skills) {
        std::string detail = std::string("risk ") + manifest::to_string(spec.risk) + ", min_trust " +
                             manifest::to_string(spec.min_trust) +
                             (spec.requires_approval ? ", requires approval" : "") +
                             (spec.annotations.read_only ? ", read-only" : "");
        const auto* claimed = spec.foreign->annotations.if_contains("readOnlyHint");
        if (claimed != nullptr && claimed->is_bool() && claimed->get_bool() && !spec.annotations.read_only)
            detail += "; the server says read-only, which is not believed (set annotations in skills: to agree)";
        report.add({"skill", spec.id, true, detail + "; not called (a foreign tool may act)"});
    }
    return report.finish(file);
}

int run_check(CliContext& ctx, const std::string& manifest_file, bool json) {
    CheckReport report(json);
    auto declaration = manifest::load_plugin_declaration(manifest_file);
    if (!declaration) {
        report_manifest_problems(report, declaration.error());
        return report.finish(manifest_file);
    }
    if (const auto* server = std::get_if<manifest::ForeignServer>(&declaration.value())) {
        auto cfg = ctx.load_config();
        if (!cfg) return fail_setup(cfg.error(), json);
        return check_foreign_server(*server, manifest_file, report, cfg.value());
    }
    auto* m = &std::get<manifest::Manifest>(declaration.value());
    report.add({"manifest", "", true,
                std::to_string(m->skills.size()) + " skills, ABI " + std::to_string(m->abi.major) + "." +
                    std::to_string(m->abi.minor)});

    auto scratch = ScratchDir::create("skillhost-check");
    if (!scratch) return fail_setup(scratch.error(), json);
    plugin::LoaderOptions lo;
    lo.cache_dir = scratch->path() / "plugin-cache";
    // Completions come from the configured models, as in the host (the builtin model by default),
    // so skills that ask a model can run their examples too.
    auto cfg = ctx.load_config();
    if (!cfg) return fail_setup(cfg.error(), json);
    auto router = llm::ModelRouter::load(cfg->etc_dir / "models.yaml", nullptr, app::chat_backend_factories());
    if (!router) return fail_setup(router.error(), json);
    lo.completions = std::make_shared<app::RouterCompletionService>(router.value());
    // Plugin storage on a throw-away database, so skills that keep records can run their examples.
    auto storage = app::PluginStorageService::open(db::StorageLocation::sqlite(scratch->path() / "skillhost.db"));
    if (!storage) return fail_setup(storage.error(), json);
    lo.storage = storage.value();
    // Every skill runs in a runner, so a crash is reported for that skill instead of ending the
    // check; crashes neither quarantine the plugin nor delay the next skill.
    lo.isolation = plugin::isolation_options(cfg.value());
    lo.isolation.default_mode = plugin::IsolationMode::process;
    lo.isolation.plugin_modes.clear();
    lo.isolation.builtin_dirs.clear();
    lo.isolation.crash_limit = 0;
    lo.isolation.restart_backoff = std::chrono::milliseconds(0);
    std::filesystem::create_directories(lo.cache_dir);
    plugin::PluginLoader loader(lo);
    auto loaded = loader.load(*m);
    if (!loaded) {
        report.add({"load", "", false, loaded.error().code + ": " + loaded.error().message});
        return report.finish(manifest_file);
    }
    report.add({"load", "", true,
                "ABI accepted, entry found, skills match the manifest, plugin version " +
                    std::string(loaded.value()->version())});

    catalog::CatalogSnapshot snap(1, {loaded.value()}, {});
    exec::Executor executor;
    plugin::Call caller;
    caller.user_id = "plugin-check";
    caller.workspace_root = scratch->path() / "workspace";
    exec::CallOptions options;
    options.users_dir = scratch->path() / "users";
    std::filesystem::create_directories(caller.workspace_root);
    // Manifest order, not catalog (id) order: an author may let a later skill's example use what an
    // earlier one created (fs_write's example writes the file fs_read's example reads).
    for (const auto& spec : m->skills)
        if (const auto* entry = snap.find(spec.id)) check_skill(report, executor, snap, *entry, caller, options);
    return report.finish(manifest_file);
}

}  // namespace

void register_plugin_commands(CLI::App& app, CliContext& ctx) {
    auto* plugin = app.add_subcommand("plugin", "Tools for plugin authors");
    plugin->require_subcommand(1);
    auto* check = plugin->add_subcommand(
        "check", "Conformance check: load as the host does, run every example, probe with invalid arguments");
    auto file = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    check
        ->add_option("MANIFEST", *file,
                     "The plugin's manifest (its library is found beside it), or a foreign MCP server's "
                     "declaration (docs/gateway.md)")
        ->required();
    check->add_flag("--json", *json, "Machine-readable report");
    ctx.add_global_options(*check);
    // Relative to where the command runs, then absolute: a server's working directory and files are
    // resolved against the declaration's directory, in processes that start elsewhere.
    check->callback([&ctx, file, json] {
        ctx.exit_code = run_check(ctx, file->empty() ? *file : std::filesystem::absolute(*file).string(), *json);
    });
    register_plugin_new_command(*plugin, ctx);
    register_plugin_validate_command(*plugin, ctx);
    register_plugin_package_commands(*plugin, ctx);
}

}  // namespace skillhost::cli
