// The sandbox part of skillhost-runner's command line, the same for a plugin runner
// (process_plugin.hpp) and a foreign MCP server run in server mode (foreign_process.hpp): mode,
// limits, the unprivileged identity, network and workspace as the permissions grant, and a fresh
// cgroup leaf holding its memory and tasks where the host has cgroups.
#pragma once

#include "base/error.hpp"
#include "manifest/manifest.hpp"
#include "plugin/isolation_options.hpp"
#include "plugin/runner_identity.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::plugin {

struct RunnerSandboxArgs {
    std::vector<std::string> args;
    // The leaves made for this process: removed by whoever started it once it has exited.
    std::filesystem::path cgroup_leaf;
    std::filesystem::path cgroup_pids_leaf;  // cgroup v1: the pids controller's leaf
    std::filesystem::path pids_events;       // where pids.max being reached is seen
};

// `sandbox: require` never runs third-party code with a layer missing: memory limits that count
// everything need a cgroup (the kernel's own checks, namespaces, Landlock and seccomp, are refused by
// the runner itself, which knows what the kernel offers). SANDBOX_UNAVAILABLE naming the mechanism.
std::optional<Error> missing_sandbox_mechanism(const IsolationOptions& isolation);

// `owner` names the leaf and the warning when no leaf can be made (plugin or server name).
RunnerSandboxArgs runner_sandbox_args(const IsolationOptions& isolation, const manifest::Permissions& granted,
                                      const std::optional<RunnerIdentity>& identity, std::string_view owner);

}  // namespace skillhost::plugin
