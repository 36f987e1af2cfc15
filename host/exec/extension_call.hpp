// What the plugin extensions that publish things for a user (resources, prompts) share: whether the
// user may see what a plugin publishes (they may call its governing skill without an approval), and
// one request to the plugin run with the call context that skill's call would get.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "exec/call_pipeline.hpp"
#include "auth/user_context.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace skillhost::exec {

// The spec of `governing_skill` when it is one of `plugin`'s own skills in `catalog` and `user` may
// call it without an approval; nullptr otherwise (a misnamed skill is logged, naming `extension`).
const manifest::SkillSpec* governing_spec(const PipelineParts& parts, const catalog::CatalogSnapshot& catalog,
                                          const auth::UserContext& user,
                                          const std::shared_ptr<plugin::LoadedPlugin>& plugin,
                                          const char* governing_skill, std::string_view extension);

// Runs `request` with the call context a call of `governing` by `user` gets (path rules, data
// directory, workspace) and a deadline `limit` from now; `call_id` names it in logs.
plugin::RawOutcome run_extension_request(const PipelineParts& parts, const auth::UserContext& user,
                                         const manifest::SkillSpec& governing, const plugin::LoadedPlugin& plugin,
                                         std::string call_id, std::chrono::milliseconds limit,
                                         const std::function<plugin::RawOutcome(const plugin::Call&)>& request);

// The error a plugin's extension function answered (its own, with "plugin" added to the details), or
// PLUGIN_INVALID_RESULT when it wrote nothing or a result with a failure status. `function` names it
// ("resources read()").
Error extension_error(const plugin::RawOutcome& outcome, std::string_view plugin, std::string_view function);

// Appends `event` to the audit log (when there is one) with `fields` plus the plugin (when not empty),
// the outcome (`done`, or "failed") and the error's code.
void audit_extension_request(const PipelineParts& parts, const char* event, boost::json::object fields,
                             std::string_view plugin, const char* done, const Error* error);

// True when the plugin answered with a result and OK.
inline bool answered(const plugin::RawOutcome& outcome) {
    return outcome.status == SKILLHOST_STATUS_OK && outcome.written == plugin::RawOutcome::Written::result;
}

}  // namespace skillhost::exec
