#include "exec/prepared_call.hpp"
#include "exec/error_codes.hpp"
#include "plugin/error_codes.hpp"

#include "exec/argument_validation.hpp"
#include "exec/near_names.hpp"

#include <boost/json/array.hpp>

#include <vector>

namespace skillhost::exec {

Error skill_not_found(const catalog::CatalogSnapshot& catalog, std::string_view skill_id) {
    // A skill whose plugin failed to load is not unknown: the caller is told what went wrong.
    for (const auto& failure : catalog.failures()) {
        const auto* skills = failure.error.details.if_contains("skills");
        if (skills == nullptr || !skills->is_array()) continue;
        for (const auto& id : skills->as_array()) {
            if (!id.is_string() || id.as_string() != skill_id) continue;
            Error error{errors::kPluginNotLoaded,
                        "skill \"" + std::string(skill_id) + "\" is provided by plugin " + failure.plugin_name +
                            ", which failed to load: " + failure.error.code + ": " + failure.error.message,
                        {},
                        {"fix the cause above; the plugin loads again on the next reload (or restart)",
                         "`skillhost skills list` shows every plugin that failed to load"}};
            error.details["skill"] = std::string(skill_id);
            error.details["plugin"] = failure.plugin_name;
            boost::json::object cause{{"code", failure.error.code.str()}, {"message", failure.error.message}};
            error.details["cause"] = std::move(cause);
            return error;
        }
    }
    std::vector<std::string_view> ids;
    ids.reserve(catalog.entries().size());
    for (const auto& e : catalog.entries()) ids.push_back(e.spec->id);
    const auto similar = near_names(skill_id, ids);
    // A hostile id may be long; the message quotes only its start.
    const std::string shown =
        skill_id.size() > 80 ? std::string(skill_id.substr(0, 80)) + "..." : std::string(skill_id);
    Error error{errors::kSkillNotFound, "no skill named \"" + shown + "\" in the catalog"};
    if (!similar.empty()) {
        error.message += "; did you mean " + similar.front() + "?";
        for (const auto& s : similar) error.suggestions.push_back("Did you mean " + s + "?");
    } else {
        error.message += "; pick a skill id from the catalog";
    }
    boost::json::array listed;
    for (const auto& s : similar) listed.emplace_back(s);
    error.details["skill"] = shown;
    error.details["similar"] = std::move(listed);
    return error;
}

Result<PreparedCall> prepare_call(const catalog::CatalogEntry& entry, const boost::json::value& args) {
    auto prepared = prepare_arguments(entry.spec->id, entry.spec->inputs, args);
    if (!prepared) return std::move(prepared.error());
    return PreparedCall(entry.plugin, entry.spec, std::move(prepared.value()));
}

Result<PreparedCall> prepare_call(const catalog::CatalogSnapshot& catalog, std::string_view skill_id,
                                  const boost::json::value& args) {
    const catalog::CatalogEntry* entry = catalog.find(skill_id);
    if (!entry) return skill_not_found(catalog, skill_id);
    return prepare_call(*entry, args);
}

}  // namespace skillhost::exec
