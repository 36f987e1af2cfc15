// A call that is ready to run: its skill found once in one catalog snapshot, its arguments validated
// and defaulted once. Only prepare_call() makes one, so the executor can take it as it is and never
// looks the skill up or validates again; the approval path goes through the same function.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"

#include <boost/json/value.hpp>

#include <memory>
#include <string_view>

namespace skillhost::exec {

class PreparedCall;

// SKILL_NOT_FOUND for `skill_id`, naming the closest skill ids of `catalog` ("did you mean ...?").
// The one wording every front end answers with.
Error skill_not_found(const catalog::CatalogSnapshot& catalog, std::string_view skill_id);

// Validates `args` against the entry's input schema and applies its defaults (INVALID_ARGS).
Result<PreparedCall> prepare_call(const catalog::CatalogEntry& entry, const boost::json::value& args);
// Finds `skill_id` in `catalog` (SKILL_NOT_FOUND with near names) and prepares it.
Result<PreparedCall> prepare_call(const catalog::CatalogSnapshot& catalog, std::string_view skill_id,
                                  const boost::json::value& args);

class PreparedCall {
public:
    const manifest::SkillSpec& spec() const { return *spec_; }
    // Keeps the library (and so spec()) alive for as long as the call needs it.
    const std::shared_ptr<plugin::LoadedPlugin>& plugin() const { return plugin_; }
    // Validated, with the schema's defaults applied.
    const boost::json::value& args() const { return args_; }

private:
    PreparedCall(std::shared_ptr<plugin::LoadedPlugin> plugin, const manifest::SkillSpec* spec, boost::json::value args)
        : plugin_(std::move(plugin)), spec_(spec), args_(std::move(args)) {}
    friend Result<PreparedCall> prepare_call(const catalog::CatalogEntry& entry, const boost::json::value& args);

    std::shared_ptr<plugin::LoadedPlugin> plugin_;
    const manifest::SkillSpec* spec_;
    boost::json::value args_;
};

}  // namespace skillhost::exec
