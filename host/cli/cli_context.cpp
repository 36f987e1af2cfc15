#include "cli/cli_context.hpp"

namespace skillhost::cli {

exec::CallerContext HostRuntime::caller(const std::string& user_id) const {
    exec::CallerContext c;
    c.user_id = user_id.empty() ? config.default_user : user_id;
    c.users_dir = config.users_dir();
    c.workspace_root = config.default_workspace;
    return c;
}

void CliContext::add_global_options(CLI::App& app) {
    app.add_option("--config", options.config_file, "Configuration file (default: $SKILLHOST_CONFIG or built-in defaults)")
        ->type_name("FILE");
    app.add_option("--home", options.home, "Home directory for state (default: $SKILLHOST_HOME or ~/.skillhost)")
        ->type_name("DIR");
}

Result<config::HostConfig> CliContext::load_config() const {
    config::ConfigSources sources;
    if (!options.config_file.empty()) sources.config_file = options.config_file;
    if (!options.home.empty()) sources.home = options.home;
    sources.executable = executable_;
    return config::load_host_config(sources);
}

Result<HostRuntime*> CliContext::runtime() {
    if (runtime_) return runtime_.get();
    auto cfg = load_config();
    if (!cfg) return cfg.error();
    auto rt = std::make_unique<HostRuntime>();
    rt->config = std::move(cfg.value());
    std::error_code ec;
    std::filesystem::create_directories(rt->config.plugin_cache_dir(), ec);
    if (ec) {
        return Error{"HOME_NOT_WRITABLE",
                     "cannot create " + rt->config.plugin_cache_dir().string() + ": " + ec.message(),
                     {},
                     {"pass a writable directory with --home or set SKILLHOST_HOME"}};
    }
    plugin::LoaderOptions lo;
    lo.cache_dir = rt->config.plugin_cache_dir();
    rt->loader = std::make_unique<plugin::PluginLoader>(lo);
    auto report = plugin::discover_plugins(*rt->loader, rt->config.plugin_dirs);
    rt->catalog = std::make_shared<catalog::CatalogSnapshot>(1, std::move(report.plugins), std::move(report.failures));
    rt->executor = std::make_unique<exec::Executor>();
    runtime_ = std::move(rt);
    return runtime_.get();
}

}  // namespace skillhost::cli
