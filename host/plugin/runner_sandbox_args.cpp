#include "plugin/runner_sandbox_args.hpp"

#include "plugin/error_codes.hpp"
#include "plugin/runner_cgroups.hpp"

#include <spdlog/spdlog.h>

#include <cctype>

namespace skillhost::plugin {

// `sandbox: require` never runs a third-party runner with a layer missing: memory limits that
// count everything need a cgroup (the kernel's own checks, namespaces, Landlock and seccomp, are
// refused by the runner itself, which knows what the kernel offers).
std::optional<Error> missing_sandbox_mechanism(const IsolationOptions& iso) {
    if (iso.sandbox != SandboxMode::require || iso.limits.memory_mb == 0 || runner_cgroups().available())
        return std::nullopt;
    const std::string reason = runner_cgroups().describe().at("reason").as_string().c_str();
    Error error{errors::kSandboxUnavailable,
                "`sandbox: require` needs a memory cgroup for plugin runners (memfd, shared memory and page cache "
                "are counted only there), and none is usable: " +
                    reason +
                    ". Run the daemon as root, or delegate a cgroup to its user (systemd: Delegate=yes), or set "
                    "isolation.sandbox: best_effort in skillhost.yaml"};
    error.details["mechanism"] = "memory cgroup";
    return error;
}

RunnerSandboxArgs runner_sandbox_args(const IsolationOptions& iso, const manifest::Permissions& granted,
                                      const std::optional<RunnerIdentity>& identity, std::string_view owner) {
    RunnerSandboxArgs out;
    out.args = {"--sandbox",          std::string(to_string(iso.sandbox)),
                "--memory-mb",        std::to_string(iso.limits.memory_mb),
                "--cpu-seconds",      std::to_string(iso.limits.cpu_seconds),
                "--open-files",       std::to_string(iso.limits.open_files),
                "--max-tasks",        std::to_string(iso.limits.max_tasks),
                "--network",          granted.network ? "1" : "0",
                "--workspace-access", std::string(manifest::to_string(granted.workspace))};
    if (identity)
        out.args.insert(out.args.end(),
                        {"--runner-uid", std::to_string(identity->uid), "--runner-gid", std::to_string(identity->gid)});
    if (!runner_cgroups().available()) return out;
    std::string leaf_name(owner);
    for (char& c : leaf_name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    Result<std::filesystem::path> leaf =
        runner_cgroups().create_leaf(leaf_name, iso.limits.memory_mb << 20, iso.limits.max_tasks);
    if (!leaf) {
        spdlog::warn("[plugin {}] runner without a cgroup (memory falls back to RLIMIT_AS): {}", owner,
                     leaf.error().message);
        return out;
    }
    out.cgroup_leaf = leaf.value();
    out.args.insert(out.args.end(), {"--cgroup", leaf.value().string()});
    out.cgroup_pids_leaf = runner_cgroups().pids_leaf_of(leaf.value());
    if (!out.cgroup_pids_leaf.empty())
        out.args.insert(out.args.end(), {"--cgroup-pids", out.cgroup_pids_leaf.string()});
    // pids.max stops the threads; its "max" event tells the host to end the runner.
    out.pids_events = (out.cgroup_pids_leaf.empty() ? out.cgroup_leaf : out.cgroup_pids_leaf) / "pids.events";
    return out;
}

}  // namespace skillhost::plugin
