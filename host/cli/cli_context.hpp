// What every CLI command shares: the global options and a lazily built host runtime.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "config/host_config.hpp"
#include "exec/call_pipeline.hpp"
#include "exec/executor.hpp"
#include "llm/llm_call_observer.hpp"
#include "llm/model_router.hpp"
#include "plugin/plugin_loader.hpp"
#include "policy/approval_queue.hpp"
#include "policy/audit_log.hpp"
#include "policy/mode_store.hpp"
#include "policy/policy_config.hpp"
#include "policy/policy_engine.hpp"
#include "policy/users.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace skillhost::cli {

struct GlobalOptions {
    std::string config_file;  // --config
    std::string home;         // --home
};

// The loaded host: configuration, plugins, catalog snapshot, users and policy, and the call
// pipeline every skill call goes through.
struct HostRuntime {
    config::HostConfig config;
    std::unique_ptr<plugin::PluginLoader> loader;
    std::shared_ptr<const catalog::CatalogSnapshot> catalog;
    std::unique_ptr<exec::Executor> executor;
    std::unique_ptr<policy::UserDirectory> users;
    policy::PolicyConfig policy_config;
    std::unique_ptr<policy::PolicyEngine> policy;
    std::unique_ptr<policy::ModeStore> modes;
    std::unique_ptr<policy::AuditLog> audit;
    std::unique_ptr<policy::ApprovalQueue> approvals;
    std::unique_ptr<exec::CallPipeline> pipeline;
    std::shared_ptr<llm::LlmCallObserver> llm_observer;
    std::shared_ptr<llm::ModelRouter> router;  // models.yaml; also serves plugins' completions

    // The user a command acts as: `id`, or (when empty) the configured default user, or the first
    // owner. USER_NOT_FOUND names the known users.
    Result<policy::UserContext> user(std::string_view id) const;
    policy::Resolver resolver(const policy::UserContext& user) const;
    exec::CallerContext caller(const policy::UserContext& user) const;
};

class CliContext {
public:
    explicit CliContext(std::filesystem::path executable) : executable_(std::move(executable)) {}

    GlobalOptions options;
    int exit_code = 0;

    // Adds --config and --home to a (sub)command, so they work before or after the command name.
    void add_global_options(CLI::App& app);

    Result<config::HostConfig> load_config() const;
    // Loads configuration and plugins once; later calls return the same runtime.
    Result<HostRuntime*> runtime();

    const std::filesystem::path& executable() const { return executable_; }

private:
    std::filesystem::path executable_;
    std::unique_ptr<HostRuntime> runtime_;
};

// Each command family registers itself on the app.
void register_skills_commands(CLI::App& app, CliContext& ctx);
void register_call_command(CLI::App& app, CliContext& ctx);
void register_plugin_commands(CLI::App& app, CliContext& ctx);
void register_demo_commands(CLI::App& app, CliContext& ctx);
void register_approval_commands(CLI::App& app, CliContext& ctx);
void register_policy_commands(CLI::App& app, CliContext& ctx);
void register_mode_commands(CLI::App& app, CliContext& ctx);
void register_audit_commands(CLI::App& app, CliContext& ctx);
void register_models_commands(CLI::App& app, CliContext& ctx);
void register_watch_command(CLI::App& app, CliContext& ctx);
void register_mcp_command(CLI::App& app, CliContext& ctx);

}  // namespace skillhost::cli
