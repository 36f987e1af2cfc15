#include "plugin/isolation_config.hpp"

namespace skillhost::plugin {
namespace {

IsolationMode mode_of(const std::string& text) {
    return text == "in_process" ? IsolationMode::in_process : IsolationMode::process;
}

}  // namespace

IsolationOptions isolation_options(const config::HostConfig& config) {
    const config::IsolationSettings& s = config.isolation;
    IsolationOptions options;
    options.default_mode = mode_of(s.default_mode);
    options.builtin_dirs = config.builtin_plugin_dirs;
    for (const auto& [plugin, mode] : s.plugins) options.plugin_modes[plugin] = mode_of(mode);
    options.runner = s.runner;
    options.sandbox = s.sandbox == "require" ? SandboxMode::require
                      : s.sandbox == "off"   ? SandboxMode::off
                                             : SandboxMode::best_effort;
    options.limits.memory_mb = s.memory_mb;
    options.limits.cpu_seconds = s.cpu_seconds;
    options.limits.open_files = s.open_files;
    options.limits.max_tasks = s.max_tasks;
    options.limits.disk_budget_mb = s.disk_budget_mb;
    options.runner_user = s.runner_user;
    options.max_result_bytes = s.max_result_bytes;
    options.crash_limit = s.crash_limit;
    options.crash_window = s.crash_window;
    options.restart_backoff = s.restart_backoff;
    options.kill_grace = s.kill_grace;
    options.idle_timeout = s.idle_timeout;
    return options;
}

}  // namespace skillhost::plugin
