#include "exec/extension_call.hpp"
#include "exec/error_codes.hpp"
#include "exec/plugin_error.hpp"

#include "plugin/call_control.hpp"
#include "policy/call_path_rules.hpp"

#include <boost/json/parse.hpp>
#include <spdlog/spdlog.h>

#include <system_error>

namespace skillhost::exec {

namespace json = boost::json;

const manifest::SkillSpec* governing_spec(const PipelineParts& parts, const catalog::CatalogSnapshot& catalog,
                                          const auth::UserContext& user,
                                          const std::shared_ptr<plugin::LoadedPlugin>& plugin,
                                          const char* governing_skill, std::string_view extension) {
    if (!governing_skill) {
        spdlog::warn("[plugin {}] its {} extension names no governing skill; what it publishes is not shown",
                     plugin->manifest().name, extension);
        return nullptr;
    }
    // The governing skill must be the plugin's own: a plugin cannot borrow another's policy.
    const catalog::CatalogEntry* entry = catalog.find(governing_skill);
    if (!entry || entry->plugin != plugin) {
        spdlog::warn(
            "[plugin {}] its {} extension names '{}', which is not one of its skills in the catalog; what it "
            "publishes is not shown",
            plugin->manifest().name, extension, governing_skill);
        return nullptr;
    }
    const manifest::SkillSpec& spec = *entry->spec;
    const policy::PolicyEngine& policy = *parts.policy;
    if (!policy.is_visible(user, spec) || user.trust < spec.min_trust) return nullptr;
    // A listing or read cannot wait for an approval: only a skill the user may call without one governs.
    if (!policy.decide(user, spec, json::object()).allowed()) return nullptr;
    return &spec;
}

plugin::RawOutcome run_extension_request(const PipelineParts& parts, const auth::UserContext& user,
                                         const manifest::SkillSpec& governing, const plugin::LoadedPlugin& plugin,
                                         std::string call_id, std::chrono::milliseconds limit,
                                         const std::function<plugin::RawOutcome(const plugin::Call&)>& request) {
    plugin::CallControl control;
    if (auto rules = policy::CallPathRules::for_call(*parts.policy, user, governing, json::object()))
        control.path_allowed = [rules](std::string_view path) { return rules->allows(path); };
    plugin::Call context;
    context.skill_id = governing.id;
    context.call_id = std::move(call_id);
    context.user_id = user.user_id;
    context.cognitive_mode = auth::to_string(user.mode);
    if (!parts.users_dir.empty())
        context.data_dir = parts.users_dir / user.user_id / "plugins" / plugin.manifest().name;
    context.workspace_root = user.workspace;
    context.deadline_unix_ms =
        std::chrono::ceil<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch() + limit)
            .count();
    context.control = &control;
    return request(context);
}

Error extension_error(const plugin::RawOutcome& outcome, std::string_view plugin, std::string_view function) {
    if (outcome.written != plugin::RawOutcome::Written::error) {
        Error e{errors::kPluginInvalidResult,
                "plugin '" + std::string(plugin) + "' answered " + std::string(function) +
                    (outcome.written == plugin::RawOutcome::Written::nothing ? " without writing anything"
                                                                             : " with a result but a failure status") +
                    "; report it to the plugin's author"};
        e.details["plugin"] = plugin;
        return e;
    }
    Error e = error_from_plugin_call(outcome.error_code, outcome.error_message);
    std::error_code ec;
    json::value details = json::parse(outcome.error_details_json, ec);
    if (!ec && details.is_object()) e.details = std::move(details.as_object());
    e.details["plugin"] = plugin;
    return e;
}

void audit_extension_request(const PipelineParts& parts, const char* event, json::object fields,
                             std::string_view plugin, const char* done, const Error* error) {
    if (!parts.audit) return;
    fields["outcome"] = error ? "failed" : done;
    if (!plugin.empty()) fields["plugin"] = plugin;
    if (error) fields["code"] = error->code.str();
    if (auto st = parts.audit->append(event, std::move(fields)); !st) spdlog::warn("audit: {}", st.error().message);
}

}  // namespace skillhost::exec
