#include "exec/prompt_access.hpp"
#include "exec/error_codes.hpp"
#include "plugin/error_codes.hpp"

#include "exec/extension_call.hpp"
#include "exec/playbook_prompts.hpp"
#include "exec/skill_example_prompts.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>

namespace skillhost::exec {

namespace json = boost::json;

struct PromptAccess::Source {
    std::shared_ptr<plugin::LoadedPlugin> plugin;
    const manifest::SkillSpec* governing = nullptr;
};

struct PromptAccess::Found {
    Source source;
    json::object prompt;  // as checked: with its arguments' enums
};

PromptAccess::PromptAccess(const CallPipeline& pipeline, const ResourceAccess& resources,
                           const store::GuidanceStore* playbooks)
    : pipeline_(pipeline), resources_(resources), playbooks_(playbooks) {}

std::vector<PromptAccess::Source> PromptAccess::sources(const catalog::CatalogSnapshot& catalog,
                                                        const auth::UserContext& user) const {
    std::vector<Source> out;
    for (const auto& plugin : catalog.plugins()) {
        const auto* table = static_cast<const skillhost_prompts_v1*>(plugin->extension(SKILLHOST_EXT_PROMPTS));
        if (!table) continue;
        if (const manifest::SkillSpec* spec =
                governing_spec(pipeline_.parts(), catalog, user, plugin, table->governing_skill, "prompts"))
            out.push_back(Source{plugin, spec});
    }
    return out;
}

plugin::RawOutcome PromptAccess::ask(const Source& source, const auth::UserContext& user, plugin::PromptRequest request,
                                     std::string_view name, std::string_view json) const {
    return run_extension_request(
        pipeline_.parts(), user, *source.governing, *source.plugin, "prompt-" + std::to_string(++next_request_),
        kDeadline, [&](const plugin::Call& context) {
            return source.plugin->request_prompts(request, context, name, json, kMaxPromptAnswerBytes);
        });
}

std::optional<json::array> PromptAccess::listed(const Source& source, const auth::UserContext& user) const {
    const std::string& name = source.plugin->manifest().name;
    plugin::RawOutcome outcome = ask(source, user, plugin::PromptRequest::list, {}, {});
    if (outcome.error_code == errors::kPromptsUnsupported.name) return std::nullopt;
    auto prompts = answered(outcome) ? check_prompt_list({name, "list()"}, outcome.result_json)
                                     : Result<json::array>(extension_error(outcome, name, "prompts list()"));
    if (!prompts) {
        spdlog::warn("prompts list() of plugin {} for user {} left out: {}: {}", name, user.user_id,
                     prompts.error().code, prompts.error().message);
        return std::nullopt;
    }
    return std::move(*prompts);
}

json::array PromptAccess::list(const catalog::CatalogSnapshot& catalog, const auth::UserContext& asked) const {
    const auth::UserContext user = pipeline_.current_user(asked);
    json::array out;
    std::set<std::string, std::less<>> seen;
    for (const Source& source : sources(catalog, user)) {
        auto prompts = listed(source, user);
        if (!prompts) continue;
        for (auto& value : *prompts) {
            json::object& prompt = value.as_object();
            if (!seen.emplace(prompt.at("name").as_string()).second) continue;
            // The enums serve completion; MCP's PromptArgument has no such member.
            for (auto& argument : prompt["arguments"].as_array()) argument.as_object().erase("enum");
            out.push_back(std::move(value));
        }
    }
    json::array hosts = skill_example_prompts(pipeline_, catalog, user);
    if (playbooks_)
        for (auto& playbook : playbook_prompts(pipeline_, catalog, user, *playbooks_))
            hosts.push_back(std::move(playbook));
    for (auto& published : hosts)
        if (seen.emplace(published.as_object().at("name").as_string()).second) out.push_back(std::move(published));
    std::sort(out.begin(), out.end(), [](const json::value& a, const json::value& b) {
        return a.as_object().at("name").as_string() < b.as_object().at("name").as_string();
    });
    return out;
}

std::optional<PromptAccess::Found> PromptAccess::find(const catalog::CatalogSnapshot& catalog,
                                                      const auth::UserContext& user, std::string_view name) const {
    for (const Source& source : sources(catalog, user)) {
        auto prompts = listed(source, user);
        if (!prompts) continue;
        for (auto& prompt : *prompts)
            if (prompt.as_object().at("name").as_string() == name) return Found{source, std::move(prompt.as_object())};
    }
    return std::nullopt;
}

namespace {

Error prompt_not_found(std::string_view name, const auth::UserContext& user) {
    Error e{errors::kPromptNotFound, "no prompt '" + std::string(name) + "' is available to user '" + user.user_id +
                                         "'; list the prompts you can use with prompts/list"};
    e.details["name"] = name;
    return e;
}

Error invalid_arguments(std::string message, std::string_view prompt) {
    Error e{errors::kInvalidPromptArguments, std::move(message)};
    e.details["prompt"] = prompt;
    return e;
}

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
    if (prefix.size() > text.size()) return false;
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (lower(text[i]) != lower(prefix[i])) return false;
    return true;
}

Error invalid_completion(std::string message) {
    return Error{errors::kInvalidCompletionRequest, std::move(message)};
}

// A string member of `object` of at most `limit` bytes, or nullptr.
const json::string* string_member(const json::object* object, const char* name, std::size_t limit) {
    const json::value* v = object ? object->if_contains(name) : nullptr;
    return v && v->is_string() && v->get_string().size() <= limit ? &v->get_string() : nullptr;
}

}  // namespace

Result<json::object> PromptAccess::get(const catalog::CatalogSnapshot& catalog, const auth::UserContext& asked,
                                       std::string_view name, const json::object& arguments) const {
    const auth::UserContext user = pipeline_.current_user(asked);
    if (name.empty() || name.size() > kMaxPromptNameBytes) return prompt_not_found(name.substr(0, 256), user);
    auto found = find(catalog, user, name);
    if (!found) {
        auto published = render_skill_example(pipeline_, catalog, user, name);
        if (!published && playbooks_) published = render_playbook(pipeline_, catalog, user, *playbooks_, name);
        if (published) {
            audit_get(user, name, "", nullptr);
            return std::move(*published);
        }
        Error e = prompt_not_found(name, user);
        audit_get(user, name, "", &e);
        return e;
    }
    // Only the arguments the prompt declares reach the plugin, each a string.
    json::object passed;
    for (const auto& declared : found->prompt.at("arguments").as_array()) {
        const json::object& argument = declared.as_object();
        const json::string& argument_name = argument.at("name").as_string();
        const json::value* value = arguments.if_contains(argument_name);
        if (!value || value->is_null()) {
            const json::value* required = argument.if_contains("required");
            if (required && required->as_bool())
                return invalid_arguments("prompt '" + std::string(name) + "' needs the argument '" +
                                             std::string(argument_name) + "'; pass it in params.arguments",
                                         name);
            continue;
        }
        if (!value->is_string() || value->get_string().size() > kMaxArgumentBytes)
            return invalid_arguments("argument '" + std::string(argument_name) + "' of prompt '" + std::string(name) +
                                         "' must be a string of at most " + std::to_string(kMaxArgumentBytes) +
                                         " bytes",
                                     name);
        passed[argument_name] = *value;
    }
    const std::string& plugin_name = found->source.plugin->manifest().name;
    plugin::RawOutcome outcome = ask(found->source, user, plugin::PromptRequest::get, name, json::serialize(passed));
    auto rendered = answered(outcome) ? check_prompt_messages({plugin_name, "get()"}, outcome.result_json)
                                      : Result<json::object>(extension_error(outcome, plugin_name, "prompts get()"));
    audit_get(user, name, plugin_name, rendered ? nullptr : &rendered.error());
    return rendered;
}

json::object PromptAccess::ask_completion(const Source& source, const auth::UserContext& user,
                                          const json::object& request) const {
    const std::string& name = source.plugin->manifest().name;
    plugin::RawOutcome outcome = ask(source, user, plugin::PromptRequest::complete, {}, json::serialize(request));
    if (outcome.error_code == errors::kPromptsUnsupported.name) return json::object{{"values", json::array()}};
    auto values = answered(outcome) ? check_completion({name, "complete()"}, outcome.result_json)
                                    : Result<json::object>(extension_error(outcome, name, "prompts complete()"));
    if (!values) {
        spdlog::warn("prompts complete() of plugin {} for user {} left out: {}: {}", name, user.user_id,
                     values.error().code, values.error().message);
        return json::object{{"values", json::array()}};
    }
    return std::move(*values);
}

Result<json::object> PromptAccess::complete(const catalog::CatalogSnapshot& catalog, const auth::UserContext& asked,
                                            const json::object& params) const {
    const auth::UserContext user = pipeline_.current_user(asked);
    const json::value* ref_value = params.if_contains("ref");
    const json::object* ref = ref_value ? ref_value->if_object() : nullptr;
    const json::string* type = string_member(ref, "type", 64);
    const json::value* argument_value = params.if_contains("argument");
    const json::object* argument = argument_value ? argument_value->if_object() : nullptr;
    const json::string* argument_name = string_member(argument, "name", kMaxPromptNameBytes);
    const json::string* typed = string_member(argument, "value", kMaxArgumentBytes);
    if (!type || (*type != "ref/prompt" && *type != "ref/resource") || !argument_name || !typed)
        return invalid_completion(
            "completion/complete needs params.ref ({\"type\":\"ref/prompt\",\"name\"} or "
            "{\"type\":\"ref/resource\",\"uri\"}) and params.argument ({\"name\",\"value\"}, strings; the value at "
            "most " +
            std::to_string(kMaxArgumentBytes) + " bytes)");
    json::object context_arguments;
    if (const json::value* context = params.if_contains("context"); context && context->is_object())
        if (const json::value* given = context->get_object().if_contains("arguments"); given && given->is_object())
            for (const auto& [key, value] : given->get_object())
                if (value.is_string() && value.get_string().size() <= kMaxArgumentBytes &&
                    context_arguments.size() < kMaxPromptArguments)
                    context_arguments[key] = value;

    json::array values;
    std::size_t enum_matches = 0;
    std::optional<Source> hook;
    json::object clean_ref;
    if (*type == "ref/prompt") {
        const json::string* name = string_member(ref, "name", kMaxPromptNameBytes);
        if (!name) return invalid_completion("params.ref.name must name a prompt from prompts/list");
        auto found = find(catalog, user, *name);
        if (!found) {
            // The host's own prompts (skill examples, playbooks) take no arguments: nothing to offer.
            const bool host_published = render_skill_example(pipeline_, catalog, user, *name) ||
                                        (playbooks_ && render_playbook(pipeline_, catalog, user, *playbooks_, *name));
            if (!host_published) return prompt_not_found(*name, user);
            return json::object{{"values", json::array()}, {"total", 0}, {"hasMore", false}};
        }
        const json::object* declared = nullptr;
        for (const auto& a : found->prompt.at("arguments").as_array())
            if (a.as_object().at("name").as_string() == *argument_name) declared = &a.as_object();
        if (!declared)
            return invalid_completion("prompt '" + std::string(*name) + "' has no argument '" +
                                      std::string(*argument_name) + "'; see its arguments in prompts/list");
        if (const json::value* e = declared->if_contains("enum"))
            for (const auto& v : e->as_array())
                if (starts_with_ignoring_case(v.as_string(), *typed)) {
                    ++enum_matches;
                    if (values.size() < kMaxCompletionValues) values.push_back(v);
                }
        hook = found->source;
        clean_ref = json::object{{"type", "ref/prompt"}, {"name", *name}};
    } else {
        const json::string* uri = string_member(ref, "uri", ResourceAccess::kMaxUriBytes);
        if (!uri) return invalid_completion("params.ref.uri must be a uriTemplate from resources/templates/list");
        auto publisher = resources_.template_publisher(catalog, user, *uri);
        if (!publisher) {
            Error e{errors::kResourceNotFound, "no resource template '" + std::string(*uri) +
                                                   "' is available to user '" + user.user_id +
                                                   "'; see resources/templates/list"};
            e.details["uri"] = *uri;
            return e;
        }
        // The template's plugin completes it when it has a prompts extension the user may use.
        for (Source& source : sources(catalog, user))
            if (source.plugin == publisher) hook = std::move(source);
        clean_ref = json::object{{"type", "ref/resource"}, {"uri", *uri}};
    }

    std::size_t total = enum_matches;
    bool has_more = enum_matches > values.size();
    if (hook) {
        json::object request{{"ref", std::move(clean_ref)},
                             {"argument", json::object{{"name", *argument_name}, {"value", *typed}}},
                             {"context", json::object{{"arguments", std::move(context_arguments)}}}};
        json::object answer = ask_completion(*hook, user, request);
        const json::array& offered = answer.at("values").as_array();
        std::set<std::string, std::less<>> seen;
        for (const auto& v : values) seen.emplace(v.as_string());
        std::size_t added = 0;
        for (const auto& v : offered) {
            if (!seen.emplace(v.as_string()).second) continue;
            ++added;
            if (values.size() < kMaxCompletionValues)
                values.push_back(v);
            else
                has_more = true;
        }
        std::size_t plugin_total = added;
        if (const json::value* t = answer.if_contains("total"))
            plugin_total = std::max<std::size_t>(
                added, t->is_uint64() ? t->get_uint64() : static_cast<std::uint64_t>(t->get_int64()));
        // A plugin's total is its own claim: bounded so that adding the enum's matches cannot wrap.
        total += std::min<std::size_t>(plugin_total, std::size_t{1} << 40);
        if (const json::value* more = answer.if_contains("hasMore"); more && more->as_bool()) has_more = true;
    }
    if (total > values.size()) has_more = true;
    return json::object{{"values", std::move(values)}, {"total", total}, {"hasMore", has_more}};
}

std::string PromptAccess::source_fingerprint(const catalog::CatalogSnapshot& catalog,
                                             const auth::UserContext& asked) const {
    std::string out;
    for (const Source& source : sources(catalog, pipeline_.current_user(asked)))
        out += source.plugin->manifest().name + "@" + source.plugin->loaded_from().string() + ";";
    return out;
}

void PromptAccess::audit_get(const auth::UserContext& user, std::string_view name, std::string_view plugin,
                             const Error* error) const {
    audit_extension_request(pipeline_.parts(), "prompt_get", json::object{{"user", user.user_id}, {"prompt", name}},
                            plugin, "rendered", error);
}

}  // namespace skillhost::exec
