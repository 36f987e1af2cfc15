#include "exec/resource_access.hpp"

#include "exec/resource_reply_check.hpp"
#include "plugin/call_control.hpp"
#include "policy/call_path_rules.hpp"

#include <boost/json/parse.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <system_error>

namespace skillhost::exec {

namespace json = boost::json;

struct ResourceAccess::Source {
    std::shared_ptr<plugin::LoadedPlugin> plugin;
    const manifest::SkillSpec* governing = nullptr;
    std::string_view uri_prefix;  // points into the plugin's static table
};

ResourceAccess::ResourceAccess(const CallPipeline& pipeline) : pipeline_(pipeline) {}

std::vector<ResourceAccess::Source> ResourceAccess::sources(const catalog::CatalogSnapshot& catalog,
                                                            const policy::UserContext& user) const {
    const policy::PolicyEngine& policy = *pipeline_.parts().policy;
    std::vector<Source> out;
    for (const auto& plugin : catalog.plugins()) {
        const auto* table = static_cast<const skillhost_resources_v1*>(plugin->extension(SKILLHOST_EXT_RESOURCES));
        if (!table) continue;
        if (!table->governing_skill || !table->uri_prefix || table->uri_prefix[0] == '\0') {
            spdlog::warn(
                "[plugin {}] its resources extension names no governing skill or URI prefix; its resources "
                "are not shown",
                plugin->manifest().name);
            continue;
        }
        // The governing skill must be the plugin's own: a plugin cannot borrow another's policy.
        const catalog::CatalogEntry* entry = catalog.find(table->governing_skill);
        if (!entry || entry->plugin != plugin) {
            spdlog::warn(
                "[plugin {}] its resources extension names '{}', which is not one of its skills in the "
                "catalog; its resources are not shown",
                plugin->manifest().name, table->governing_skill);
            continue;
        }
        const manifest::SkillSpec& spec = *entry->spec;
        if (!policy.is_visible(user, spec) || user.trust < spec.min_trust) continue;
        // A read cannot wait for an approval: only a skill the user may call without one governs.
        if (!policy.decide(user, spec, json::object()).allowed()) continue;
        out.push_back(Source{plugin, &spec, table->uri_prefix});
    }
    return out;
}

plugin::RawOutcome ResourceAccess::ask(const Source& source, const policy::UserContext& user,
                                       plugin::ResourceRequest request, std::string_view uri) const {
    const PipelineParts& parts = pipeline_.parts();
    plugin::CallControl control;
    if (auto rules = policy::CallPathRules::for_call(*parts.policy, user, *source.governing, json::object()))
        control.path_allowed = [rules](std::string_view path) { return rules->allows(path); };
    plugin::CallContext context;
    context.skill_id = source.governing->id;
    context.call_id = "resource-" + std::to_string(++next_request_);
    context.user_id = user.user_id;
    context.cognitive_mode = policy::to_string(user.mode);
    if (!parts.users_dir.empty())
        context.data_dir = parts.users_dir / user.user_id / "plugins" / source.plugin->manifest().name;
    context.workspace_root = user.workspace;
    context.deadline_unix_ms =
        std::chrono::ceil<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch() + kDeadline)
            .count();
    context.control = &control;
    return source.plugin->request_resources(request, context, uri, kMaxResourceAnswerBytes);
}

namespace {

Error plugin_error(const plugin::RawOutcome& outcome, std::string_view plugin, std::string_view function) {
    if (outcome.written != plugin::RawOutcome::Written::error) {
        Error e{"PLUGIN_INVALID_RESULT",
                "plugin '" + std::string(plugin) + "' answered resources " + std::string(function) +
                    (outcome.written == plugin::RawOutcome::Written::nothing ? " without writing anything"
                                                                             : " with a result but a failure status") +
                    "; report it to the plugin's author"};
        e.details["plugin"] = plugin;
        return e;
    }
    Error e{outcome.error_code, outcome.error_message};
    std::error_code ec;
    json::value details = json::parse(outcome.error_details_json, ec);
    if (!ec && details.is_object()) e.details = std::move(details.as_object());
    e.details["plugin"] = plugin;
    return e;
}

using Check = Result<json::array> (*)(const ResourceReplySource&, std::string_view);

// Sorts by the string member `key`, keeping the first of equal keys and dropping later ones.
json::array sorted_unique(json::array items, const char* key) {
    auto key_of = [key](const json::value& v) { return std::string_view(v.as_object().at(key).as_string()); };
    std::stable_sort(items.begin(), items.end(),
                     [&](const json::value& a, const json::value& b) { return key_of(a) < key_of(b); });
    json::array out;
    for (auto& item : items)
        if (out.empty() || key_of(out.back()) != key_of(item)) out.push_back(std::move(item));
    return out;
}

}  // namespace

json::array ResourceAccess::collect(const catalog::CatalogSnapshot& catalog, const policy::UserContext& asked,
                                    plugin::ResourceRequest request) const {
    const bool templates = request == plugin::ResourceRequest::list_templates;
    const char* function = templates ? "list_templates()" : "list()";
    const Check check = templates ? &check_resource_templates : &check_resource_list;
    const policy::UserContext user = pipeline_.current_user(asked);
    json::array out;
    for (const Source& source : sources(catalog, user)) {
        const std::string& name = source.plugin->manifest().name;
        plugin::RawOutcome outcome = ask(source, user, request, {});
        if (outcome.error_code == "RESOURCES_UNSUPPORTED") continue;
        auto items = outcome.status == SKILLHOST_STATUS_OK && outcome.written == plugin::RawOutcome::Written::result
                         ? check({name, source.uri_prefix, function}, outcome.result_json)
                         : Result<json::array>(plugin_error(outcome, name, function));
        if (!items) {
            spdlog::warn("resources {} of plugin {} for user {} left out: {}: {}", function, name, user.user_id,
                         items.error().code, items.error().message);
            continue;
        }
        for (auto& item : *items) out.push_back(std::move(item));
    }
    return sorted_unique(std::move(out), templates ? "uriTemplate" : "uri");
}

json::array ResourceAccess::list(const catalog::CatalogSnapshot& catalog, const policy::UserContext& user) const {
    return collect(catalog, user, plugin::ResourceRequest::list);
}

json::array ResourceAccess::list_templates(const catalog::CatalogSnapshot& catalog,
                                           const policy::UserContext& user) const {
    return collect(catalog, user, plugin::ResourceRequest::list_templates);
}

Result<json::array> ResourceAccess::read(const catalog::CatalogSnapshot& catalog, const policy::UserContext& asked,
                                         std::string_view uri) const {
    if (uri.empty() || uri.size() > kMaxResourceUriBytes ||
        std::any_of(uri.begin(), uri.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
        Error e{"INVALID_URI", "the resource URI must be 1 to " + std::to_string(kMaxResourceUriBytes) +
                                   " bytes without control characters; use a uri from resources/list"};
        e.details["length"] = uri.size();
        return e;
    }
    const policy::UserContext user = pipeline_.current_user(asked);
    for (const Source& source : sources(catalog, user)) {
        if (uri.substr(0, source.uri_prefix.size()) != source.uri_prefix) continue;
        const std::string& name = source.plugin->manifest().name;
        plugin::RawOutcome outcome = ask(source, user, plugin::ResourceRequest::read, uri);
        Result<json::array> contents =
            outcome.status == SKILLHOST_STATUS_OK && outcome.written == plugin::RawOutcome::Written::result
                ? check_resource_contents({name, source.uri_prefix, "read()"}, outcome.result_json)
                : Result<json::array>(plugin_error(outcome, name, "read()"));
        if (!contents && contents.error().code == "RESOURCE_NOT_FOUND") continue;
        audit_read(user, uri, name, contents ? nullptr : &contents.error());
        return contents;
    }
    Error e{"RESOURCE_NOT_FOUND", "no resource '" + std::string(uri) + "' is available to user '" + user.user_id +
                                      "'; list the resources you can read with resources/list"};
    e.details["uri"] = uri;
    audit_read(user, uri, "", &e);
    return e;
}

std::map<std::string, std::string, std::less<>> ResourceAccess::source_fingerprints(
    const catalog::CatalogSnapshot& catalog, const policy::UserContext& asked) const {
    std::map<std::string, std::string, std::less<>> out;
    for (const Source& source : sources(catalog, pipeline_.current_user(asked)))
        out[std::string(source.uri_prefix)] +=
            source.plugin->manifest().name + "@" + source.plugin->loaded_from().string() + ";";
    return out;
}

void ResourceAccess::audit_read(const policy::UserContext& user, std::string_view uri, std::string_view plugin,
                                const Error* error) const {
    policy::AuditLog* audit = pipeline_.parts().audit;
    if (!audit) return;
    json::object fields{{"user", user.user_id}, {"uri", uri}, {"outcome", error ? "failed" : "read"}};
    if (!plugin.empty()) fields["plugin"] = plugin;
    if (error) fields["code"] = error->code;
    if (auto st = audit->append("resource_read", std::move(fields)); !st) spdlog::warn("audit: {}", st.error().message);
}

}  // namespace skillhost::exec
