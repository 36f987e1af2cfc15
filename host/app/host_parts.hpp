// The parts a HostRuntime is assembled from. For the app layer only: its use cases (approval and
// question actions, decision views and upkeep, the operator's runtime) reach them through
// parts_of(). Front ends (cli/, server/) use HostRuntime's own methods; architecture_layers_test
// refuses this header and parts_of() there.
#pragma once

#include "app/definition_pin_store.hpp"
#include "app/host_runtime.hpp"
#include "app/user_secret_store.hpp"
#include "audit/audit_log.hpp"
#include "auth/users.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "config/host_config.hpp"
#include "decisions/approval_queue.hpp"
#include "decisions/definition_change_queue.hpp"
#include "decisions/elicitation_queue.hpp"
#include "exec/call_observer.hpp"
#include "exec/call_pipeline.hpp"
#include "exec/executor.hpp"
#include "llm/llm_call_observer.hpp"
#include "llm/model_router.hpp"
#include "plugin/plugin_loader.hpp"
#include "policy/mode_cache.hpp"
#include "policy/policy_config.hpp"
#include "policy/policy_engine.hpp"
#include "reload/watched_catalog.hpp"
#include "store/guidance_store.hpp"

#include <memory>

namespace skillhost::app {

struct HostParts {
    config::HostConfig config;
    std::unique_ptr<auth::UserDirectory> users;
    policy::PolicyConfig policy_config;
    std::unique_ptr<policy::PolicyEngine> policy;
    std::unique_ptr<policy::ModeCache> modes;  // in front of the mode store: no database read per call
    std::unique_ptr<audit::AuditLog> audit;
    std::unique_ptr<decisions::ApprovalQueue> approvals;
    std::unique_ptr<decisions::ElicitationQueue> elicitations;  // skills' questions asked later
    // Changed definitions of foreign MCP servers' tools, and the pins they change (shared with the
    // loaded foreign plugins, which may outlive the runtime's other parts).
    std::shared_ptr<decisions::DefinitionChangeQueue> definition_changes;
    std::shared_ptr<DefinitionPinStore> definition_pins;
    // Users' secrets for foreign MCP servers, sealed in the database (shared with the loaded plugins).
    std::shared_ptr<UserSecretStore> secrets;
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
};

inline HostParts& parts_of(HostRuntime& runtime) {
    return *runtime.parts_;
}
inline const HostParts& parts_of(const HostRuntime& runtime) {
    return *runtime.parts_;
}

}  // namespace skillhost::app
