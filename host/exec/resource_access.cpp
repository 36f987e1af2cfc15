#include "exec/resource_access.hpp"
#include "exec/error_codes.hpp"
#include "plugin/error_codes.hpp"

#include "exec/extension_call.hpp"
#include "exec/resource_reply_check.hpp"

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
                                                            const auth::UserContext& user) const {
    std::vector<Source> out;
    for (const auto& plugin : catalog.plugins()) {
        const auto* table = static_cast<const skillhost_resources_v1*>(plugin->extension(SKILLHOST_EXT_RESOURCES));
        if (!table) continue;
        if (!table->uri_prefix || table->uri_prefix[0] == '\0') {
            spdlog::warn("[plugin {}] its resources extension names no URI prefix; its resources are not shown",
                         plugin->manifest().name);
            continue;
        }
        if (const manifest::SkillSpec* spec =
                governing_spec(pipeline_.parts(), catalog, user, plugin, table->governing_skill, "resources"))
            out.push_back(Source{plugin, spec, table->uri_prefix});
    }
    return out;
}

plugin::RawOutcome ResourceAccess::ask(const Source& source, const auth::UserContext& user,
                                       plugin::ResourceRequest request, std::string_view uri) const {
    return run_extension_request(
        pipeline_.parts(), user, *source.governing, *source.plugin, "resource-" + std::to_string(++next_request_),
        kDeadline, [&](const plugin::Call& context) {
            return source.plugin->request_resources(request, context, uri, kMaxResourceAnswerBytes);
        });
}

namespace {

Error plugin_error(const plugin::RawOutcome& outcome, std::string_view plugin, std::string_view function) {
    return extension_error(outcome, plugin, "resources " + std::string(function));
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

json::array ResourceAccess::collect(const catalog::CatalogSnapshot& catalog, const auth::UserContext& asked,
                                    plugin::ResourceRequest request) const {
    const bool templates = request == plugin::ResourceRequest::list_templates;
    const char* function = templates ? "list_templates()" : "list()";
    const Check check = templates ? &check_resource_templates : &check_resource_list;
    const auth::UserContext user = pipeline_.current_user(asked);
    json::array out;
    for (const Source& source : sources(catalog, user)) {
        const std::string& name = source.plugin->manifest().name;
        plugin::RawOutcome outcome = ask(source, user, request, {});
        if (outcome.error_code == errors::kResourcesUnsupported.name) continue;
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

json::array ResourceAccess::list(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user) const {
    return collect(catalog, user, plugin::ResourceRequest::list);
}

json::array ResourceAccess::list_templates(const catalog::CatalogSnapshot& catalog,
                                           const auth::UserContext& user) const {
    return collect(catalog, user, plugin::ResourceRequest::list_templates);
}

Result<json::array> ResourceAccess::read(const catalog::CatalogSnapshot& catalog, const auth::UserContext& asked,
                                         std::string_view uri) const {
    if (uri.empty() || uri.size() > kMaxResourceUriBytes ||
        std::any_of(uri.begin(), uri.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
        Error e{errors::kInvalidUri, "the resource URI must be 1 to " + std::to_string(kMaxResourceUriBytes) +
                                         " bytes without control characters; use a uri from resources/list"};
        e.details["length"] = uri.size();
        return e;
    }
    const auth::UserContext user = pipeline_.current_user(asked);
    for (const Source& source : sources(catalog, user)) {
        if (uri.substr(0, source.uri_prefix.size()) != source.uri_prefix) continue;
        const std::string& name = source.plugin->manifest().name;
        plugin::RawOutcome outcome = ask(source, user, plugin::ResourceRequest::read, uri);
        Result<json::array> contents =
            outcome.status == SKILLHOST_STATUS_OK && outcome.written == plugin::RawOutcome::Written::result
                ? check_resource_contents({name, source.uri_prefix, "read()"}, outcome.result_json)
                : Result<json::array>(plugin_error(outcome, name, "read()"));
        if (!contents && contents.error().is(errors::kResourceNotFound)) continue;
        audit_read(user, uri, name, contents ? nullptr : &contents.error());
        return contents;
    }
    Error e{errors::kResourceNotFound, "no resource '" + std::string(uri) + "' is available to user '" + user.user_id +
                                           "'; list the resources you can read with resources/list"};
    e.details["uri"] = uri;
    audit_read(user, uri, "", &e);
    return e;
}

std::shared_ptr<plugin::LoadedPlugin> ResourceAccess::template_publisher(const catalog::CatalogSnapshot& catalog,
                                                                         const auth::UserContext& asked,
                                                                         std::string_view uri_template) const {
    const auth::UserContext user = pipeline_.current_user(asked);
    for (const Source& source : sources(catalog, user)) {
        if (uri_template.substr(0, source.uri_prefix.size()) != source.uri_prefix) continue;
        plugin::RawOutcome outcome = ask(source, user, plugin::ResourceRequest::list_templates, {});
        if (!answered(outcome)) continue;
        auto templates = check_resource_templates(
            {source.plugin->manifest().name, source.uri_prefix, "list_templates()"}, outcome.result_json);
        if (!templates) continue;
        for (const auto& t : *templates)
            if (t.as_object().at("uriTemplate").as_string() == uri_template) return source.plugin;
    }
    return nullptr;
}

std::map<std::string, std::string, std::less<>> ResourceAccess::source_fingerprints(
    const catalog::CatalogSnapshot& catalog, const auth::UserContext& asked) const {
    std::map<std::string, std::string, std::less<>> out;
    for (const Source& source : sources(catalog, pipeline_.current_user(asked)))
        out[std::string(source.uri_prefix)] +=
            source.plugin->manifest().name + "@" + source.plugin->loaded_from().string() + ";";
    return out;
}

void ResourceAccess::audit_read(const auth::UserContext& user, std::string_view uri, std::string_view plugin,
                                const Error* error) const {
    audit_extension_request(pipeline_.parts(), "resource_read", json::object{{"user", user.user_id}, {"uri", uri}},
                            plugin, "read", error);
}

}  // namespace skillhost::exec
