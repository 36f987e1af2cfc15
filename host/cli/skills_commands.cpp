// `skills list`, `skills show ID`, `catalog --format F`.
#include "base/json_text.hpp"
#include "catalog/catalog_render.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "plugin/error_codes.hpp"

#include <iostream>
#include <map>

namespace skillhost::cli {
namespace {

void print_failures(const catalog::CatalogSnapshot& snap) {
    if (snap.failures().empty()) return;
    std::cout << "\n"
              << snap.failures().size() << (snap.failures().size() == 1 ? " plugin" : " plugins")
              << " failed to load:\n";
    for (const auto& f : snap.failures()) {
        std::cout << "  " << (f.plugin_name.empty() ? f.manifest_file.filename().string() : f.plugin_name) << " ("
                  << f.manifest_file.string() << "): " << f.error.code << ": " << f.error.message << "\n";
    }
}

struct ListArgs {
    std::string user;
    bool all = false;
    bool json = false;
};

// What the acting user may see and call in their mode, or everything with `all`.
Result<std::vector<const catalog::CatalogEntry*>> entries_for(HostRuntime& host, const std::string& user, bool all) {
    if (all) return catalog::all_entries(*host.snapshot());
    auto u = host.user(user);
    if (!u) return u.error();
    return host.calls().visible_entries(*host.snapshot(), u.value());
}

int run_list(CliContext& ctx, const ListArgs& a) {
    const bool json = a.json;
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), json);
    const auto snapshot = rt.value()->snapshot();
    const auto& snap = *snapshot;
    auto visible = entries_for(*rt.value(), a.user, a.all);
    if (!visible) return fail_setup(visible.error(), json);
    const auto& entries = visible.value();
    if (json) {
        boost::json::object out = catalog::render_skill_list(snap, entries);
        print_json(out);
        return kExitOk;
    }
    if (entries.empty() && !snap.entries().empty()) {
        std::cout << "No skills are visible to this user in their mode and trust level (--all shows every skill).\n";
    } else if (entries.empty()) {
        std::cout << "No skills loaded. Plugin directories searched:\n";
        for (const auto& d : rt.value()->config().plugin_dirs) std::cout << "  " << d.string() << "\n";
    } else {
        std::cout << catalog::render_catalog_table(entries);
    }
    print_failures(snap);
    return kExitOk;
}

int run_show(CliContext& ctx, const std::string& id, bool json) {
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), json);
    const auto snapshot = rt.value()->snapshot();
    const auto& snap = *snapshot;
    const auto* entry = snap.find(id);
    if (!entry) {
        Error e{errors::kSkillNotFound,
                "no skill named '" + id + "' is loaded",
                {},
                {"run `skillhost skills list` to see the loaded skills"}};
        e.details["skill"] = id;
        if (json) print_error_json(e);
        print_error(e);
        return kExitFailed;
    }
    auto rendered = catalog::render_catalog_json({entry});
    // What its runner actually gets (known once the plugin's check runner has started).
    const boost::json::object sandbox = entry->plugin->isolated() ? entry->plugin->sandbox() : boost::json::object{};
    if (json) {
        if (!sandbox.empty() && rendered.at(0).is_object()) rendered.at(0).as_object()["sandbox"] = sandbox;
        print_json(rendered.at(0));
        return kExitOk;
    }
    auto field = [&](const char* key) -> std::string {
        const auto* v = sandbox.if_contains(key);
        return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    std::string sandbox_line;
    if (entry->plugin->isolated()) {
        const std::string ns = field("namespaces"), who = field("identity");
        sandbox_line = "sandbox:     " + field("mode") + "; namespaces: " + (ns.empty() ? "none" : ns) +
                       "; identity: " + (who.empty() ? "the daemon's user" : who) + "; memory: ";
        const auto* limits = sandbox.if_contains("limits");
        const auto* memory = limits && limits->is_object() ? limits->as_object().if_contains("memory") : nullptr;
        sandbox_line += memory && memory->is_string() ? std::string(memory->as_string()) : "not limited";
        sandbox_line +=
            "; seccomp: " +
            std::string(sandbox.contains("seccomp") && !sandbox.at("seccomp").is_bool() ? "allowlist" : "none") + "\n";
    }
    const auto& s = *entry->spec;
    std::cout << s.id << " — " << s.title << "\n"
              << "plugin:      " << entry->plugin->manifest().name << " " << entry->plugin->version() << "\n"
              << "category:    " << (s.category.empty() ? "-" : s.category) << "\n"
              << "risk:        " << manifest::to_string(s.risk) << ", cost " << manifest::to_string(s.cost) << "\n"
              << "min trust:   " << manifest::to_string(s.min_trust) << "\n"
              << "approval:    " << (s.requires_approval ? "always required" : "by policy") << "\n"
              << "timeout:     " << s.timeout_ms << " ms, " << manifest::to_string(s.concurrency) << "\n"
              << "runs:        "
              << (entry->plugin->isolated() ? "isolated (own sandboxed process)" : "in the host process") << "\n"
              << sandbox_line << "permissions: workspace "
              << manifest::to_string(entry->plugin->manifest().permissions.workspace) << ", network "
              << (entry->plugin->manifest().permissions.network ? "yes" : "no") << ", llm "
              << (entry->plugin->manifest().permissions.llm ? "yes" : "no")
              << (entry->plugin->manifest().permissions.declared ? "" : " (not declared)") << "\n"
              << "state:       " << manifest::to_string(entry->plugin->manifest().state) << "\n\n"
              << s.description << "\n\n"
              << catalog::render_catalog_text({entry});
    if (!s.examples.empty()) {
        std::cout << "\nexamples:\n";
        for (const auto& ex : s.examples)
            std::cout << "  skillhost call " << s.id << " --args '" << boost::json::serialize(ex.args) << "'"
                      << (ex.description.empty() ? "" : "   # " + ex.description) << "\n";
    }
    return kExitOk;
}

int run_catalog(CliContext& ctx, const std::string& format, const std::string& user, bool all) {
    static const std::map<std::string, catalog::RenderFormat> formats{{"text", catalog::RenderFormat::text},
                                                                      {"json", catalog::RenderFormat::json},
                                                                      {"openai", catalog::RenderFormat::openai},
                                                                      {"mcp", catalog::RenderFormat::mcp},
                                                                      {"table", catalog::RenderFormat::table}};
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), false);
    std::string text;
    if (all) {
        text = rt.value()->snapshot()->render(formats.at(format));
    } else {
        auto visible = entries_for(*rt.value(), user, false);
        if (!visible) return fail_setup(visible.error(), false);
        const auto& e = visible.value();
        if (format == "text")
            text = catalog::render_catalog_text(e);
        else if (format == "json")
            text = pretty_json(catalog::render_catalog_json(e));
        else if (format == "openai")
            text = pretty_json(catalog::render_catalog_openai(e));
        else if (format == "mcp")
            text = pretty_json(catalog::render_catalog_mcp(e));
        else
            text = catalog::render_catalog_table(e);
    }
    std::cout << text;
    if (!text.empty() && text.back() != '\n') std::cout << "\n";
    return kExitOk;
}

}  // namespace

void register_skills_commands(CLI::App& app, CliContext& ctx) {
    auto* skills = app.add_subcommand("skills", "List and inspect the loaded skills");
    skills->require_subcommand(1);

    auto* list = skills->add_subcommand(
        "list", "The skills the user may call in their mode, and every plugin that failed to load with why");
    auto la = std::make_shared<ListArgs>();
    list->add_option("--user", la->user, "List for this user (default: the configured default user)");
    list->add_flag("--all", la->all, "Every loaded skill, whoever may call it");
    list->add_flag("--json", la->json, "Machine-readable output");
    ctx.add_global_options(*list);
    list->callback([&ctx, la] { ctx.exit_code = run_list(ctx, *la); });

    auto* show = skills->add_subcommand("show", "Everything the manifest says about one skill");
    auto show_id = std::make_shared<std::string>();
    auto show_json = std::make_shared<bool>(false);
    show->add_option("ID", *show_id, "Skill id, e.g. task_list")->required();
    show->add_flag("--json", *show_json, "Machine-readable output");
    ctx.add_global_options(*show);
    show->callback([&ctx, show_id, show_json] { ctx.exit_code = run_show(ctx, *show_id, *show_json); });

    auto* cat = app.add_subcommand("catalog", "Print the tool catalog as the planner, OpenAI/Ollama or MCP see it");
    auto format = std::make_shared<std::string>("text");
    auto cat_user = std::make_shared<std::string>();
    auto cat_all = std::make_shared<bool>(false);
    cat->add_option("--user", *cat_user, "The catalog this user sees (default: the configured default user)");
    cat->add_flag("--all", *cat_all, "Every loaded skill, whoever may call it");
    cat->add_option("--format", *format, "text (LLM prompt), json, openai (tools array), mcp (tools/list), table")
        ->check(CLI::IsMember({"text", "json", "openai", "mcp", "table"}))
        ->capture_default_str();
    ctx.add_global_options(*cat);
    cat->callback(
        [&ctx, format, cat_user, cat_all] { ctx.exit_code = run_catalog(ctx, *format, *cat_user, *cat_all); });
}

}  // namespace skillhost::cli
