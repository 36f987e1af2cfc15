#include "plugin/isolation_options.hpp"
#include "plugin/error_codes.hpp"

#include "plugin/supervision_counters.hpp"

#include <unistd.h>

#include <system_error>

namespace skillhost::plugin {

std::string_view to_string(IsolationMode mode) {
    return mode == IsolationMode::process ? "process" : "in_process";
}

std::string_view to_string(SandboxMode mode) {
    switch (mode) {
        case SandboxMode::off: return "off";
        case SandboxMode::require: return "require";
        default: return "best_effort";
    }
}

IsolationMode IsolationOptions::mode_for(std::string_view plugin_name,
                                         const std::filesystem::path& manifest_file) const {
    if (const auto named = plugin_modes.find(plugin_name); named != plugin_modes.end()) return named->second;
    std::error_code ec;
    const auto dir = std::filesystem::weakly_canonical(manifest_file, ec).parent_path();
    for (const auto& builtin : builtin_dirs) {
        std::error_code bec;
        if (!ec && std::filesystem::weakly_canonical(builtin, bec) == dir && !bec) return IsolationMode::in_process;
    }
    return default_mode;
}

Result<std::filesystem::path> find_runner(const std::filesystem::path& configured) {
    std::error_code ec;
    if (!configured.empty()) {
        if (std::filesystem::is_regular_file(configured, ec)) return configured;
        return Error{errors::kRunnerNotFound, "isolation.runner names " + configured.string() +
                                                  ", which does not exist; fix the path in skillhost.yaml"};
    }
    std::vector<std::filesystem::path> candidates;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        candidates.push_back(self.parent_path() / "skillhost-runner");
        candidates.push_back(self.parent_path().parent_path() / "libexec" / "skillhost" / "skillhost-runner");
    }
#ifdef SKILLHOST_RUNNER_BUILD_PATH
    candidates.emplace_back(SKILLHOST_RUNNER_BUILD_PATH);  // tests run from the build tree
#endif
    std::string looked;
    for (const auto& candidate : candidates) {
        if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
        looked += (looked.empty() ? "" : ", ") + candidate.string();
    }
    Error error{errors::kRunnerNotFound, "the plugin runner skillhost-runner is not installed (looked at " + looked +
                                             "); reinstall skillhost, or set isolation.runner in skillhost.yaml"};
    return error;
}

}  // namespace skillhost::plugin
