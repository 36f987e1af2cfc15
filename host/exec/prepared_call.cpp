#include "exec/prepared_call.hpp"

#include "exec/argument_validation.hpp"
#include "exec/near_names.hpp"

#include <boost/json/array.hpp>

#include <vector>

namespace skillhost::exec {

Error skill_not_found(const catalog::CatalogSnapshot& catalog, std::string_view skill_id) {
    std::vector<std::string_view> ids;
    ids.reserve(catalog.entries().size());
    for (const auto& e : catalog.entries()) ids.push_back(e.spec->id);
    const auto similar = near_names(skill_id, ids);
    // A hostile id may be long; the message quotes only its start.
    const std::string shown =
        skill_id.size() > 80 ? std::string(skill_id.substr(0, 80)) + "..." : std::string(skill_id);
    Error error{"SKILL_NOT_FOUND", "no skill named \"" + shown + "\" in the catalog"};
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
