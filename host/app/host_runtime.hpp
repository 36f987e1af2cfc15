// The assembled host every front end runs on (the CLI's commands, `skillhost serve`, `skillhost
// mcp`): configuration, users and policy, the audit log and approval queue, the model router, the
// plugins and their catalog, the executor, and the call pipeline every skill call goes through.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "config/host_config.hpp"
#include "exec/call_observer.hpp"
#include "exec/call_pipeline.hpp"
#include "exec/executor.hpp"
#include "llm/llm_call_observer.hpp"
#include "llm/model_router.hpp"
#include "plugin/plugin_loader.hpp"
#include "decisions/approval_queue.hpp"
#include "audit/audit_log.hpp"
#include "decisions/elicitation_queue.hpp"
#include "policy/mode_cache.hpp"
#include "policy/policy_config.hpp"
#include "policy/policy_engine.hpp"
#include "auth/users.hpp"
#include "reload/watched_catalog.hpp"
#include "store/guidance_store.hpp"

#include <memory>
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
};

struct HostRuntime {
    config::HostConfig config;
    std::unique_ptr<auth::UserDirectory> users;
    policy::PolicyConfig policy_config;
    std::unique_ptr<policy::PolicyEngine> policy;
    std::unique_ptr<policy::ModeCache> modes;  // in front of the mode store: no database read per call
    std::unique_ptr<audit::AuditLog> audit;
    std::unique_ptr<decisions::ApprovalQueue> approvals;
    std::unique_ptr<decisions::ElicitationQueue> elicitations;  // skills' questions asked later
    // Every model call goes to the audit log; front ends may add their own observers (metrics).
    std::shared_ptr<llm::LlmCallObserverList> llm_observers;
    std::shared_ptr<llm::ModelRouter> router;  // models.yaml; also serves plugins' completions
    std::unique_ptr<plugin::PluginLoader> loader;
    std::shared_ptr<const catalog::CatalogSnapshot> catalog;  // fixed catalog (one-shot runtimes)
    std::unique_ptr<reload::WatchedCatalog> watched;          // live catalog (live runtimes)
    std::unique_ptr<exec::Executor> executor;
    std::shared_ptr<exec::CallObserverList> call_observers;
    std::unique_ptr<exec::CallPipeline> pipeline;
    std::unique_ptr<store::GuidanceStore> playbooks;  // with RuntimeOptions::playbooks

    ~HostRuntime();

    // The catalog as it is now; never null.
    std::shared_ptr<const catalog::CatalogSnapshot> snapshot() const;

    // The user a command acts as: `id`, or (when empty) the configured default user, or the first
    // owner. USER_NOT_FOUND names the known users.
    Result<auth::UserContext> user(std::string_view id) const;
    decisions::Resolver resolver(const auth::UserContext& user) const;
    plugin::Call caller(const auth::UserContext& user) const;
};

// Opens everything the configuration names. Errors: HOME_NOT_WRITABLE, USERS_INVALID,
// POLICY_INVALID, DATABASE_ERROR, MODELS_INVALID, ... each with what to fix. A live runtime has
// loaded its plugins when this returns; its watcher runs once start_watching() succeeded.
Result<std::unique_ptr<HostRuntime>> load_host_runtime(config::HostConfig config, const RuntimeOptions& options = {});

// Starts the plugin watcher of a live runtime (hot reload). The catalog keeps working without it
// when this fails (e.g. inotify limits); the error says why.
Status start_watching(HostRuntime& runtime);

}  // namespace skillhost::app
