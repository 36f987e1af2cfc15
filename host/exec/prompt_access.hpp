// The prompts plugins publish through the "skillhost.prompts/1" extension, as one user may see them,
// and completion of prompt and resource-template arguments. A plugin's prompts are shown and
// rendered only when the user may call the plugin's governing skill (mode, trust, rules), exactly
// like its resources; renderings are audited. Beside them the host publishes the manifests' skill
// examples and, given a guidance store, the user's learned playbooks. Front ends (MCP) render what this returns; nothing
// here knows about a protocol.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "exec/call_pipeline.hpp"
#include "exec/prompt_reply_check.hpp"
#include "exec/resource_access.hpp"
#include "auth/user_context.hpp"
#include "store/guidance_store.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::exec {

class PromptAccess {
public:
    // `pipeline`, `resources` and `playbooks` must outlive this object; without `playbooks` no
    // playbook is published.
    PromptAccess(const CallPipeline& pipeline, const ResourceAccess& resources,
                 const store::GuidanceStore* playbooks = nullptr);

    // Every prompt the user may see ({"name","title"?,"description"?,"arguments"}), sorted by name
    // (a name two plugins publish is the first plugin's). A plugin whose answer fails or breaks the
    // ABI is left out and logged.
    boost::json::array list(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user) const;

    // Prompt `name` rendered with `arguments` (argument name → string): {"description"?,"messages"}.
    // Errors: PROMPT_NOT_FOUND (no visible plugin publishes it), INVALID_PROMPT_ARGUMENTS (a missing
    // required argument, a value that is not a string or too long; named in the message),
    // PLUGIN_INVALID_RESULT, RESULT_TOO_LARGE, or the plugin's own error.
    Result<boost::json::object> get(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user,
                                    std::string_view name, const boost::json::object& arguments) const;

    // MCP completion/complete params ({"ref","argument","context"?}) → {"values","total","hasMore"}:
    // the argument's enum values starting with what was typed, then the plugin's complete() hook's,
    // at most kMaxCompletionValues. The host's own prompts (skill examples, playbooks) take no
    // arguments: their completion offers no values. Errors: INVALID_COMPLETION_REQUEST (malformed params, an
    // argument the prompt does not have), PROMPT_NOT_FOUND, RESOURCE_NOT_FOUND (an unknown template).
    Result<boost::json::object> complete(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user,
                                         const boost::json::object& params) const;

    // Which loads publish the user's prompts: a reload that changes it may have changed the list.
    std::string source_fingerprint(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user) const;

    // How long one plugin function may take (its call context's deadline).
    static constexpr std::chrono::seconds kDeadline{10};
    // The longest argument value (prompts/get) and typed value (completion) accepted.
    static constexpr std::size_t kMaxArgumentBytes = 64 * 1024;

private:
    struct Source;
    struct Found;
    std::vector<Source> sources(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user) const;
    plugin::RawOutcome ask(const Source& source, const auth::UserContext& user, plugin::PromptRequest request,
                           std::string_view name, std::string_view json) const;
    // The source's checked prompts, or nullopt (logged) when its list() fails.
    std::optional<boost::json::array> listed(const Source& source, const auth::UserContext& user) const;
    std::optional<Found> find(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user,
                              std::string_view name) const;
    // The plugin's complete() hook's values, or none (logged) when it has none or fails.
    boost::json::object ask_completion(const Source& source, const auth::UserContext& user,
                                       const boost::json::object& request) const;
    void audit_get(const auth::UserContext& user, std::string_view name, std::string_view plugin,
                   const Error* error) const;

    const CallPipeline& pipeline_;
    const ResourceAccess& resources_;
    const store::GuidanceStore* playbooks_;
    mutable std::atomic<std::uint64_t> next_request_{0};
};

}  // namespace skillhost::exec
