#include "cli/cli_context.hpp"

namespace skillhost::cli {

void CliContext::add_global_options(CLI::App& app) {
    app.add_option("--config", options.config_file,
                   "Configuration file (default: $SKILLHOST_CONFIG or built-in defaults)")
        ->type_name("FILE");
    app.add_option("--home", options.home, "Home directory for state (default: $SKILLHOST_HOME or ~/.skillhost)")
        ->type_name("DIR");
    app.add_option("--plugin-dir", options.plugin_dirs,
                   "Also load the plugins in DIR (repeatable), e.g. build/plugins: try a plugin without a "
                   "configuration file")
        ->type_name("DIR")
        ->allow_extra_args(false)  // one DIR per --plugin-dir, so a following SKILL stays positional
        ->take_all();
}

Result<config::HostConfig> CliContext::load_config() const {
    config::ConfigSources sources;
    if (!options.config_file.empty()) sources.config_file = options.config_file;
    if (!options.home.empty()) sources.home = options.home;
    sources.executable = executable_;
    for (const auto& dir : options.plugin_dirs) sources.extra_plugin_dirs.emplace_back(dir);
    return config::load_host_config(sources);
}

Result<HostRuntime*> CliContext::runtime(const app::RuntimeOptions& options) {
    if (runtime_) return runtime_.get();
    auto cfg = load_config();
    if (!cfg) return cfg.error();
    auto rt = app::load_host_runtime(std::move(cfg.value()), options);
    if (!rt) return rt.error();
    runtime_ = std::move(rt.value());
    return runtime_.get();
}

}  // namespace skillhost::cli
