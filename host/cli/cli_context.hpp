// What every CLI command shares: the global options and a lazily built host runtime.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "config/host_config.hpp"
#include "exec/executor.hpp"
#include "plugin/plugin_loader.hpp"

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

// The loaded host: configuration, plugins, catalog snapshot and executor.
struct HostRuntime {
    config::HostConfig config;
    std::unique_ptr<plugin::PluginLoader> loader;
    std::shared_ptr<const catalog::CatalogSnapshot> catalog;
    std::unique_ptr<exec::Executor> executor;

    exec::CallerContext caller(const std::string& user_id) const;
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

}  // namespace skillhost::cli
