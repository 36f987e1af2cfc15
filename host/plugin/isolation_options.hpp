// How plugins are isolated from the host: in the host process, or each in supervised, sandboxed
// runner processes (one per plugin and user). Filled from skillhost.yaml `isolation:` by the app.
#pragma once

#include "base/error.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::plugin {

enum class IsolationMode { in_process, process };
enum class SandboxMode { off, best_effort, require };

std::string_view to_string(IsolationMode mode);
std::string_view to_string(SandboxMode mode);

// Per-runner resource limits; 0 means "not limited".
struct RunnerLimits {
    std::uint64_t memory_mb = 1024;  // cgroup v2 memory.max where available, else RLIMIT_AS (not in
                                     // sanitizer builds, which reserve huge maps)
    std::uint64_t cpu_seconds = 0;   // RLIMIT_CPU: a runner's whole life, so off by default
    std::uint64_t open_files = 256;  // RLIMIT_NOFILE
    std::uint64_t max_tasks = 512;   // threads (cgroup pids.max, where the host has cgroups)
    // Per (plugin, user) data directory: the host refuses calls once it holds more, and no single
    // file in it may grow past it (RLIMIT_FSIZE). 0: not limited.
    std::uint64_t disk_budget_mb = 256;
};

struct IsolationOptions {
    // The mode of plugins found outside `builtin_dirs` unless `plugin_modes` names them.
    IsolationMode default_mode = IsolationMode::in_process;
    // Manifests directly in one of these directories are shipped with skillhost: in_process.
    std::vector<std::filesystem::path> builtin_dirs;
    // Per plugin name, set by the operator in skillhost.yaml (never by the plugin's manifest).
    std::map<std::string, IsolationMode, std::less<>> plugin_modes;
    // The runner executable; empty: found beside the running binary (see find_runner()).
    std::filesystem::path runner;
    // As root: the unprivileged user runners run as (a name, or uid[:gid]); empty: the
    // `skillhost-runner` user when the system has one, else 65533:65533 (runner_identity.hpp).
    std::string runner_user;
    SandboxMode sandbox = SandboxMode::best_effort;
    RunnerLimits limits;
    // Largest result (or error) a skill may write, for both modes.
    std::size_t max_result_bytes = std::size_t{16} << 20;
    // Supervision: `crash_limit` crashes within `crash_window` quarantine the plugin.
    unsigned crash_limit = 5;
    std::chrono::milliseconds crash_window{std::chrono::minutes(10)};
    // After a crash the next start waits restart_backoff, doubling per further crash up to 5 s.
    std::chrono::milliseconds restart_backoff{100};
    // A call still running this long after its deadline or cancellation has its runner killed.
    std::chrono::milliseconds kill_grace{2000};
    // A runner with no call for this long exits (the next call starts a new one).
    std::chrono::milliseconds idle_timeout{std::chrono::minutes(5)};
    // Told once when a plugin is quarantined (e.g. to rebuild the catalog without its skills), on
    // the thread that reads its runner: it must return promptly and must not drop the plugin there
    // (the plugin's destructor joins that thread), so a rebuild runs on a thread of the callback's
    // owner (LiveCatalog does so).
    std::function<void(const std::string& plugin_name)> on_quarantine;
    // Told when a foreign MCP server says its tools changed (notifications/tools/list_changed), on the
    // thread that reads that server (or a call's): it must return promptly and never call into the
    // plugin there; the owner of the catalog calls LoadedPlugin::relisted() on a thread of its own.
    std::function<void(const std::string& plugin_name)> on_tools_changed;
    // Told of every runner crash, kill and quarantine (e.g. for the audit log and metrics).
    std::function<void(const Error& event)> on_supervision_event;

    // The mode for the plugin of `manifest_file` named `plugin_name`.
    IsolationMode mode_for(std::string_view plugin_name, const std::filesystem::path& manifest_file) const;
};

// The runner executable: `configured` when set, else "skillhost-runner" beside the running binary,
// else the one this build produced. Error RUNNER_NOT_FOUND names every place looked at.
Result<std::filesystem::path> find_runner(const std::filesystem::path& configured);

}  // namespace skillhost::plugin
