// skillhost.yaml: where the home is, where plugins live, the defaults every command shares.
#pragma once

#include "base/error.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skillhost::config {

// `server:` in skillhost.yaml: how `skillhost serve` listens and what it allows.
struct ServerSettings {
    std::string host = "127.0.0.1";  // from `listen: HOST:PORT`; a non-loopback host needs allow_remote
    std::uint16_t port = 8787;       // 0: any free port (tests)
    bool allow_remote = false;
    unsigned threads = 0;           // network threads; 0: the core count
    unsigned handler_threads = 16;  // requests handled at once (a skill call may block one)
    std::size_t max_body_bytes = 1 << 20;
    unsigned max_runs_per_user = 4;           // operator runs working at once per user; more: 429
    unsigned max_streams = 64;                // open event streams (SSE) in all; more: 503
    unsigned max_streams_per_user = 8;        // open lasting event streams (GET /mcp, run events, audit) of one user
    unsigned max_call_streams_per_user = 32;  // MCP requests of one user answered as event streams at once; more: 429
    unsigned max_connections = 1024;          // open connections; more are answered 503 and closed
    std::chrono::milliseconds stream_write_timeout{30000};  // a stream whose client takes no data this long ends
    std::chrono::milliseconds max_call_timeout{300000};     // the highest timeout_ms a client may ask for
    std::chrono::milliseconds readiness_cache{5000};        // /readyz answers from a check at most this old
    unsigned audit_page_limit = 1000;                       // most records one GET /v1/audit returns
    unsigned mcp_sessions_per_user = 32;                    // more: the least recently used idle session is closed
    std::chrono::milliseconds mcp_idle_expiry{3600000};     // MCP sessions unused this long are closed
    std::chrono::milliseconds shutdown_grace{10000};        // SIGTERM: how long in-flight work may finish
    // Browser origins (scheme://host[:port]) allowed to call /mcp besides this machine's own.
    std::vector<std::string> mcp_allowed_origins;
    // A plugin's completion request goes to an MCP client that declared sampling (stdio and /mcp);
    // false: always to the model router.
    bool mcp_client_sampling = true;
};

// `isolation:` in skillhost.yaml: how plugins are kept apart from the host. Only this file decides
// a plugin's mode; a manifest never can.
struct IsolationSettings {
    std::string default_mode = "process";  // for plugins not shipped with skillhost: process | in_process
    std::vector<std::pair<std::string, std::string>> plugins;  // `plugins: {name: mode}` overrides
    std::string sandbox = "best_effort";                       // require | best_effort | off
    std::filesystem::path runner;                              // empty: beside the skillhost binary
    std::uint64_t memory_mb = 1024;
    std::uint64_t cpu_seconds = 0;
    std::uint64_t open_files = 256;
    std::uint64_t max_tasks = 512;       // threads per runner (cgroup pids.max, where available)
    std::uint64_t disk_budget_mb = 256;  // per (plugin, user) data directory
    // As root: the unprivileged user runners run as (a name, or uid[:gid]); empty: the
    // `skillhost-runner` user when the system has one, else uid and gid 65533.
    std::string runner_user;
    std::size_t max_result_bytes = std::size_t{16} << 20;
    unsigned crash_limit = 5;
    std::chrono::milliseconds crash_window{600000};
    std::chrono::milliseconds restart_backoff{100};
    std::chrono::milliseconds kill_grace{2000};
    std::chrono::milliseconds idle_timeout{300000};
};

// `storage:` in skillhost.yaml: where the shared state (approvals, runs, tokens, ...) lives.
struct StorageSettings {
    std::string backend = "sqlite";  // sqlite (<home>/skillhost.db) | postgres
    // postgres: a libpq connection string, "postgresql://user@host:5432/db" or "host=... dbname=...".
    // A password is better kept in ~/.pgpass or $PGPASSWORD than here.
    std::string url;
    // postgres: how long a run's lease lasts without a heartbeat (a run whose instance died is
    // taken over this long after its last heartbeat), how often leases are extended (at most half
    // the ttl), and how often the elected instance sweeps expired leases and approvals.
    std::chrono::milliseconds lease_ttl{30000};
    std::chrono::milliseconds lease_heartbeat{10000};
    std::chrono::milliseconds sweep_interval{5000};
};

// "127.0.0.1:8787", "[::1]:8787", "0.0.0.0:9000". False (with `problem`) when it is not HOST:PORT.
bool parse_listen_address(std::string_view text, std::string& host, std::uint16_t& port, std::string& problem);

struct HostConfig {
    std::filesystem::path config_file;               // empty when running on built-in defaults
    std::filesystem::path etc_dir;                   // users.yaml, policy.yaml, models.yaml, operator.yaml live here
    std::filesystem::path home;                      // skillhost.db, audit/, users/, plugin-cache/
    std::vector<std::filesystem::path> plugin_dirs;  // each holds manifests and their libraries
    std::string default_user = "owner";
    std::filesystem::path default_workspace;  // a user's workspace when users.yaml gives none
    // The key users' secrets are sealed with in the database (auth/secret_box.hpp); made on first
    // use. Instances sharing one PostgreSQL database must share this file.
    std::filesystem::path secret_key_file;
    // Where `skillhost plugin install` puts the npm packages foreign server declarations pin, and
    // where they are loaded from (default <home>/packages).
    std::filesystem::path packages_dir;
    std::chrono::milliseconds reload_debounce{100};
    ServerSettings server;
    IsolationSettings isolation;
    StorageSettings storage;
    // The directories of plugins shipped with skillhost (in_process unless `isolation.plugins` says
    // otherwise); a subset of plugin_dirs.
    std::vector<std::filesystem::path> builtin_plugin_dirs;

    std::filesystem::path users_dir() const { return home / "users"; }
    std::filesystem::path plugin_cache_dir() const { return home / "plugin-cache"; }
    std::filesystem::path database_file() const { return home / "skillhost.db"; }
    std::filesystem::path audit_dir() const { return home / "audit"; }
    // Where an author installs a plugin for this home without writing a configuration file.
    std::filesystem::path home_plugin_dir() const { return home / "plugins"; }
};

struct ConfigSources {
    std::optional<std::filesystem::path> config_file;  // --config
    std::optional<std::filesystem::path> home;         // --home (wins over the file and $SKILLHOST_HOME)
    std::filesystem::path executable;                  // to find the built-in plugins beside it
    // --plugin-dir (repeatable): searched before the file's plugin_dirs, so a plugin can be tried
    // without writing a configuration file. Relative to the working directory; each must exist.
    std::vector<std::filesystem::path> extra_plugin_dirs;
};

// Resolution: --config, else $SKILLHOST_CONFIG, else <exe>/../etc/skillhost/skillhost.yaml if it
// exists, else built-in defaults. Home: --home, else $SKILLHOST_HOME, else the file's `home`, else
// ~/.skillhost. Relative paths in the file are relative to the file's directory. `~` expands.
// Plugin directories, in search order: the built-in one (unless include_builtin_plugins: false),
// --plugin-dir, the file's plugin_dirs, then <home>/plugins when it exists (unless
// include_home_plugins: false; the place docs/plugin-authors.md installs to). Duplicates are dropped.
// Errors (CONFIG_INVALID) carry file:line:column and the key; a --plugin-dir that is not a
// directory is PLUGIN_DIR_NOT_FOUND.
Result<HostConfig> load_host_config(const ConfigSources& sources);

// The built-in plugin directory for an executable at `exe`: <exe dir>/../lib/skillhost/plugins.
std::filesystem::path builtin_plugin_dir(const std::filesystem::path& exe);

}  // namespace skillhost::config
