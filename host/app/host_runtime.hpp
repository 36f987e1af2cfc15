// The assembled host every front end runs on (the CLI's commands, `skillhost serve`, `skillhost
// mcp`): configuration, users and policy, the audit log and approval queue, the model router, the
// plugins and their catalog, the executor, and the call pipeline every skill call goes through.
// Front ends see its methods; its parts are the app layer's (app/host_parts.hpp).
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "config/host_config.hpp"
#include "exec/call_observer.hpp"
#include "exec/call_pipeline.hpp"
#include "llm/llm_call_observer.hpp"
#include "llm/model_router.hpp"
#include "llm/role_check.hpp"
#include "plugin/call.hpp"
#include "decisions/resolver.hpp"
#include "policy/policy_config.hpp"
#include "policy/decision.hpp"
#include "auth/users.hpp"
#include "reload/watched_catalog.hpp"
#include "store/guidance_store.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <vector>
#include <string_view>

namespace skillhost::app {

struct RuntimeOptions {
    // false: load the plugins once into a fixed snapshot (one-shot commands). true: a LiveCatalog
    // kept current by a PluginWatcher (serve, mcp); start_watching() starts the watcher.
    bool live_catalog = false;
    // true: open the guidance store too, so MCP sessions publish the user's playbooks as prompts
    // (serve, mcp).
    bool playbooks = false;
    // true (serve): before SQLite opens the home's database, refuse to start over an empty or
    // truncated database or a WAL that fails its checksum (db/sqlite_file_check.hpp). Not for
    // commands that may run beside a daemon, whose checkpoint can look like truncation meanwhile.
    bool refuse_damaged_store = false;
    // true (serve): foreign MCP servers start beside the catalog, never holding up its rebuilds
    // (reload::LiveCatalogOptions::start_servers_in_background).
    bool start_servers_in_background = false;
};

struct HostParts;  // app/host_parts.hpp: for the app layer's use cases only

// What a front end may do with the assembled host: read its configuration, call skills through
// the pipeline, see the catalog, find users, and hook its own observers in. Everything else (the
// approval and question queues, modes, policy, audit) is reached through the app layer's use cases
// (approval_actions.hpp, elicitation_actions.hpp, decision_views.hpp, ...), never directly.
class HostRuntime {
public:
    explicit HostRuntime(std::unique_ptr<HostParts> parts);
    ~HostRuntime();
    HostRuntime(const HostRuntime&) = delete;
    HostRuntime& operator=(const HostRuntime&) = delete;

    const config::HostConfig& config() const;
    const policy::PolicyConfig& policy_config() const;
    // Every skill call goes through it: admission, policy, approval, execution, audit.
    const exec::CallPipeline& calls() const;

    // The catalog as it is now; never null.
    std::shared_ptr<const catalog::CatalogSnapshot> snapshot() const;
    // The live catalog of a live runtime (serve, mcp); null for a one-shot runtime.
    reload::WatchedCatalog* live_catalog() const;
    // The playbook store (RuntimeOptions::playbooks); null without it.
    store::GuidanceStore* playbooks() const;

    const auth::UserDirectory& users() const;
    // The user a command acts as: `id`, or (when empty) the configured default user, or the first
    // owner. USER_NOT_FOUND names the known users.
    Result<auth::UserContext> user(std::string_view id) const;
    // Exactly user `id` (no default), with their mode and workspace.
    Result<auth::UserContext> user_exactly(std::string_view id) const;
    decisions::Resolver resolver(const auth::UserContext& user) const;
    // The cognitive mode set for a user with `mode set` (nullopt: users.yaml's default applies), and
    // setting it; every instance sees a change (policy/mode_cache.hpp).
    Result<std::optional<auth::CognitiveMode>> stored_mode(std::string_view user_id) const;
    Status set_mode(std::string_view user_id, auth::CognitiveMode mode);
    plugin::Call caller(const auth::UserContext& user) const;

    // How policy decides `skill` for `user` with these (validated) arguments, rule by rule.
    policy::Explanation explain(const auth::UserContext& user, const manifest::SkillSpec& skill,
                                const boost::json::value& arguments) const;
    // The model each role resolves to (models.yaml), in `mode` (empty: the default).
    std::vector<llm::RoleResolution> models(std::string_view mode = {}) const;
    // Sends a short test prompt to the model `role` resolves to (`skillhost models test`).
    llm::RoleTestResult test_model(std::string_view role, std::string_view mode = {});
    // Where the audit log writes; empty when it keeps no files.
    std::filesystem::path audit_directory() const;

    // A front end's own observers (metrics), beside the audit log's.
    void observe_calls(std::shared_ptr<exec::CallObserver> observer);
    void observe_model_calls(std::shared_ptr<llm::LlmCallObserver> observer);
    // Also tells `sink` of every catalog reload of a live runtime (after the audit log is told).
    void also_on_reload(std::function<void(const reload::ReloadReport&)> sink);

private:
    friend HostParts& parts_of(HostRuntime& runtime);
    friend const HostParts& parts_of(const HostRuntime& runtime);
    std::unique_ptr<HostParts> parts_;
};

// Opens everything the configuration names. Errors: HOME_NOT_WRITABLE, USERS_INVALID,
// POLICY_INVALID, DATABASE_ERROR, MODELS_INVALID, ... each with what to fix. A live runtime has
// loaded its plugins when this returns; its watcher runs once start_watching() succeeded.
Result<std::unique_ptr<HostRuntime>> load_host_runtime(config::HostConfig config, const RuntimeOptions& options = {});

// Starts the plugin watcher of a live runtime (hot reload). The catalog keeps working without it
// when this fails (e.g. inotify limits); the error says why.
Status start_watching(HostRuntime& runtime);

}  // namespace skillhost::app
