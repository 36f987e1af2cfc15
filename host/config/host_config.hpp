// skillhost.yaml: where the home is, where plugins live, the defaults every command shares.
#pragma once

#include "base/error.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace skillhost::config {

struct HostConfig {
    std::filesystem::path config_file;  // empty when running on built-in defaults
    std::filesystem::path etc_dir;      // users.yaml, policy.yaml, models.yaml, operator.yaml live here
    std::filesystem::path home;         // skillhost.db, audit/, users/, plugin-cache/
    std::vector<std::filesystem::path> plugin_dirs;  // each holds manifests and their libraries
    std::string default_user = "owner";
    std::filesystem::path default_workspace;  // a user's workspace when users.yaml gives none
    std::chrono::milliseconds reload_debounce{100};

    std::filesystem::path users_dir() const { return home / "users"; }
    std::filesystem::path plugin_cache_dir() const { return home / "plugin-cache"; }
    std::filesystem::path database_file() const { return home / "skillhost.db"; }
    std::filesystem::path audit_dir() const { return home / "audit"; }
};

struct ConfigSources {
    std::optional<std::filesystem::path> config_file;  // --config
    std::optional<std::filesystem::path> home;         // --home (wins over the file and $SKILLHOST_HOME)
    std::filesystem::path executable;                  // to find the built-in plugins beside it
};

// Resolution: --config, else $SKILLHOST_CONFIG, else <exe>/../etc/skillhost/skillhost.yaml if it
// exists, else built-in defaults. Home: --home, else $SKILLHOST_HOME, else the file's `home`, else
// ~/.skillhost. Relative paths in the file are relative to the file's directory. `~` expands.
// Errors (CONFIG_INVALID) carry file:line:column and the key.
Result<HostConfig> load_host_config(const ConfigSources& sources);

// The built-in plugin directory for an executable at `exe`: <exe dir>/../lib/skillhost/plugins.
std::filesystem::path builtin_plugin_dir(const std::filesystem::path& exe);

}  // namespace skillhost::config
