// LoadedPlugin whose code runs in supervised runner processes (skillhost-runner), one per user:
// a crash, abort or exit in the plugin ends only its calls (PLUGIN_CRASHED), the runner restarts on
// the next call after a backoff, and too many crashes quarantine the plugin until a new version
// is loaded. The executor sees an ordinary LoadedPlugin.
#pragma once

#include "plugin/isolation_options.hpp"
#include "plugin/loaded_plugin.hpp"
#include "plugin/plugin_loader.hpp"
#include "plugin/runner_connection.hpp"
#include "plugin/runner_identity.hpp"

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace skillhost::plugin {

class ProcessPlugin final : public LoadedPlugin {
public:
    // Loads the plugin once in a runner to check it (the same errors as an in-process load, plus
    // RUNNER_NOT_FOUND, RUNNER_START_FAILED and SANDBOX_UNAVAILABLE); that runner then exits.
    static Result<std::shared_ptr<LoadedPlugin>> start(const manifest::Manifest& manifest,
                                                       const LoaderOptions& options);
    ~ProcessPlugin() override;

    const manifest::Manifest& manifest() const override { return manifest_; }
    std::string_view version() const override { return ready_.version; }
    manifest::AbiVersion abi_version() const override { return {ready_.abi_major, ready_.abi_minor}; }
    const std::filesystem::path& loaded_from() const override { return library_; }
    RawOutcome invoke(const Call& context, std::string_view args_json) const override;
    const void* extension(std::string_view id) const override;
    RawOutcome request_resources(ResourceRequest request, const Call& context, std::string_view uri,
                                 std::size_t max_bytes) const override;
    RawOutcome request_prompts(PromptRequest request, const Call& context, std::string_view name, std::string_view json,
                               std::size_t max_bytes) const override;
    bool isolated() const override { return true; }
    std::optional<Error> quarantine() const override;
    boost::json::object sandbox() const override;
    boost::json::object supervision() const override;

    // Runner processes alive now (for metrics and tests).
    std::size_t runner_count() const;
    // Their process ids (for benchmarks that read their memory and CPU time).
    std::vector<pid_t> runner_pids() const;

private:
    // Crash history shared with the runners' exit callbacks, which may outlive a call.
    struct Supervision {
        std::mutex mutex;
        std::deque<std::chrono::steady_clock::time_point> crashes;  // within the window
        unsigned consecutive = 0;                                   // since the last good call
        std::chrono::steady_clock::time_point next_start{};
        std::optional<Error> quarantine;
        bool died_idle = false;  // the last runner died between calls: the next start is a restart
    };

    ProcessPlugin(manifest::Manifest manifest, LoaderOptions options, std::filesystem::path runner,
                  wire::ReadyInfo ready);
    RunnerLaunch launch_for(const Call* context) const;
    Result<std::shared_ptr<RunnerConnection>> runner_for(const Call& context) const;
    // Runs `send(runner)` (a call or an extension request) in the user's runner, in a fresh one when
    // the runner was found gone before the call reached it.
    RawOutcome in_runner(const Call& context,
                         const std::function<std::optional<RawOutcome>(RunnerConnection&)>& send) const;
    // Runs one extension request (resources, prompts) in the user's runner; `entry` names it in errors.
    RawOutcome run_extension(const Call& context, wire::ExtensionCall call, std::size_t max_bytes,
                             const char* entry) const;
    // The extension tables offered for the plugin's resources and prompts, from what the runner
    // reported; their functions are never called (requests go through request_resources/prompts).
    void publish_extension_tables();
    static void record_exit(const std::shared_ptr<Supervision>& supervision, const RunnerExit& exit,
                            const std::string& plugin, const IsolationOptions& options);

    manifest::Manifest manifest_;
    LoaderOptions options_;
    std::filesystem::path runner_;
    // Set when the daemon runs as root: the unprivileged user its runners become.
    std::optional<RunnerIdentity> identity_;
    std::filesystem::path library_;
    wire::ReadyInfo ready_;
    skillhost_plugin_info_v1 info_{};
    std::optional<skillhost_resources_v1> resources_;
    std::optional<skillhost_prompts_v1> prompts_;
    std::shared_ptr<Supervision> supervision_;

    mutable std::mutex runners_mutex_;  // also serialises starts, so one user never gets two runners
    mutable std::map<std::string, std::shared_ptr<RunnerConnection>, std::less<>> runners_;
};

}  // namespace skillhost::plugin
