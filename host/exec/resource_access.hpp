// The resources plugins publish through the "skillhost.resources/1" extension, as one user may see
// them: a plugin's resources are shown and read only when the user may call the plugin's governing
// skill (mode, trust, rules), and each read runs under that skill's path rules, asked by the plugin
// per path (the same "skillhost.path_check/1" answers a call of the skill gets). Reads are audited.
// Front ends (MCP) render what this returns; nothing here knows about a protocol.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "exec/call_pipeline.hpp"
#include "exec/resource_reply_check.hpp"
#include "auth/user_context.hpp"

#include <boost/json/array.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <memory>
#include <string_view>
#include <vector>

namespace skillhost::exec {

class ResourceAccess {
public:
    // `pipeline` (its policy, audit and users directory) must outlive this object.
    explicit ResourceAccess(const CallPipeline& pipeline);

    // Every resource the user may see, sorted by uri (a uri two plugins list is the first plugin's).
    // A plugin whose answer fails or breaks the ABI is left out and logged: one broken plugin does
    // not hide the others'.
    boost::json::array list(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user) const;
    // The same for resource templates, sorted by uriTemplate.
    boost::json::array list_templates(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user) const;

    // The contents of `uri`, asked of each visible plugin whose prefix the uri starts with until one
    // knows it. Errors: INVALID_URI (empty, too long, control characters), RESOURCE_NOT_FOUND (no
    // visible plugin knows it), PATH_NOT_ALLOWED (the user's rules withhold it), PLUGIN_INVALID_RESULT,
    // RESULT_TOO_LARGE, or the plugin's own error.
    Result<boost::json::array> read(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user,
                                    std::string_view uri) const;

    // The plugin (visible to the user) whose list_templates() lists `uri_template`; nullptr when none
    // does. Completion of a template's arguments goes to it.
    std::shared_ptr<plugin::LoadedPlugin> template_publisher(const catalog::CatalogSnapshot& catalog,
                                                             const auth::UserContext& user,
                                                             std::string_view uri_template) const;

    // For each URI prefix the user's visible plugins serve, which loads serve it (plugin name and
    // the private copy it was loaded from): a reload that changes it may have changed the resources.
    std::map<std::string, std::string, std::less<>> source_fingerprints(const catalog::CatalogSnapshot& catalog,
                                                                        const auth::UserContext& user) const;

    // The longest URI read() accepts (and a front end should accept anywhere).
    static constexpr std::size_t kMaxUriBytes = kMaxResourceUriBytes;

    // How long one plugin function may take (its call context's deadline).
    static constexpr std::chrono::seconds kDeadline{10};

private:
    struct Source;
    std::vector<Source> sources(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user) const;
    // Every visible plugin's list() or list_templates(), checked, sorted and without duplicates.
    boost::json::array collect(const catalog::CatalogSnapshot& catalog, const auth::UserContext& user,
                               plugin::ResourceRequest request) const;
    plugin::RawOutcome ask(const Source& source, const auth::UserContext& user, plugin::ResourceRequest request,
                           std::string_view uri) const;
    void audit_read(const auth::UserContext& user, std::string_view uri, std::string_view plugin,
                    const Error* error) const;

    const CallPipeline& pipeline_;
    mutable std::atomic<std::uint64_t> next_request_{0};
};

}  // namespace skillhost::exec
