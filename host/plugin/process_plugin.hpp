// LoadedPlugin whose code runs in supervised runner processes (skillhost-runner), one per user:
// a crash, abort or exit in the plugin ends only its calls (PLUGIN_CRASHED), the runner restarts on
// the next call after a backoff, and too many crashes quarantine the plugin until a new version
// is loaded. The executor sees an ordinary LoadedPlugin.
#pragma once

#include "plugin/isolation_options.hpp"
#include "plugin/loaded_plugin.hpp"
#include "plugin/plugin_loader.hpp"
#include "plugin/runner_connection.hpp"

#include <chrono>
#include <deque>
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
    RawOutcome invoke(const CallContext& context, std::string_view args_json) const override;
    const void* extension(std::string_view id) const override;
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
    };

    ProcessPlugin(manifest::Manifest manifest, LoaderOptions options, std::filesystem::path runner,
                  wire::ReadyInfo ready);
    RunnerLaunch launch_for(const CallContext* context) const;
    Result<std::shared_ptr<RunnerConnection>> runner_for(const CallContext& context) const;
    static void record_exit(const std::shared_ptr<Supervision>& supervision, const RunnerExit& exit,
                            const std::string& plugin, const IsolationOptions& options);

    manifest::Manifest manifest_;
    LoaderOptions options_;
    std::filesystem::path runner_;
    std::filesystem::path library_;
    wire::ReadyInfo ready_;
    skillhost_plugin_info_v1 info_{};
    std::shared_ptr<Supervision> supervision_;

    mutable std::mutex runners_mutex_;  // also serialises starts, so one user never gets two runners
    mutable std::map<std::string, std::shared_ptr<RunnerConnection>, std::less<>> runners_;
};

}  // namespace skillhost::plugin
