// What every CLI command shares: the global options and a lazily built host runtime.
#pragma once

#include "app/host_runtime.hpp"
#include "base/error.hpp"
#include "config/host_config.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace skillhost::cli {

struct GlobalOptions {
    std::string config_file;               // --config
    std::string home;                      // --home
    std::vector<std::string> plugin_dirs;  // --plugin-dir, repeatable
};

using HostRuntime = app::HostRuntime;

class CliContext {
public:
    explicit CliContext(std::filesystem::path executable) : executable_(std::move(executable)) {}

    GlobalOptions options;
    int exit_code = 0;

    // Adds --config, --home and --plugin-dir to a (sub)command, so they work before or after the command name.
    void add_global_options(CLI::App& app);

    Result<config::HostConfig> load_config() const;
    // Loads configuration and plugins once; later calls return the same runtime. `options` count
    // only on the first call (serve and mcp ask for a live catalog).
    Result<HostRuntime*> runtime(const app::RuntimeOptions& options = {});

    const std::filesystem::path& executable() const { return executable_; }

private:
    std::filesystem::path executable_;
    std::unique_ptr<HostRuntime> runtime_;
};

// Each command family registers itself on the app.
void register_skills_commands(CLI::App& app, CliContext& ctx);
void register_call_command(CLI::App& app, CliContext& ctx);
void register_plugin_commands(CLI::App& app, CliContext& ctx);
// Subcommands of `plugin` besides check.
void register_plugin_new_command(CLI::App& plugin, CliContext& ctx);
void register_plugin_validate_command(CLI::App& plugin, CliContext& ctx);
void register_plugin_package_commands(CLI::App& plugin, CliContext& ctx);
void register_demo_commands(CLI::App& app, CliContext& ctx);
void register_approval_commands(CLI::App& app, CliContext& ctx);
void register_elicitation_commands(CLI::App& app, CliContext& ctx);
void register_definition_change_commands(CLI::App& app, CliContext& ctx);
// Prints queued question `id` (what it asks, its fields) after `user`'s call stopped at it.
void print_pending_question(HostRuntime& host, const auth::UserContext& user, const std::string& id);
void register_policy_commands(CLI::App& app, CliContext& ctx);
void register_mode_commands(CLI::App& app, CliContext& ctx);
void register_audit_commands(CLI::App& app, CliContext& ctx);
void register_models_commands(CLI::App& app, CliContext& ctx);
void register_watch_command(CLI::App& app, CliContext& ctx);
void register_mcp_command(CLI::App& app, CliContext& ctx);
void register_serve_command(CLI::App& app, CliContext& ctx);
void register_token_commands(CLI::App& app, CliContext& ctx);
void register_secrets_commands(CLI::App& app, CliContext& ctx);
void register_oauth_commands(CLI::App& app, CliContext& ctx);
void register_db_commands(CLI::App& app, CliContext& ctx);

}  // namespace skillhost::cli
