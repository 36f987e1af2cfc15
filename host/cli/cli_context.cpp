#include "cli/cli_context.hpp"

#include "cli/audit_llm_observer.hpp"
#include "llm/router_completion_service.hpp"
#include "policy/user_context.hpp"

namespace skillhost::cli {

Result<policy::UserContext> HostRuntime::user(std::string_view id) const {
    std::string_view wanted = id;
    if (wanted.empty()) wanted = users->find(config.default_user) ? std::string_view(config.default_user)
                                                                  : std::string_view(users->first_owner().id);
    return policy::resolve_user_context(*users, *modes, wanted);
}

policy::Resolver HostRuntime::resolver(const policy::UserContext& u) const { return policy::Resolver{u.user_id, u.role}; }

exec::CallerContext HostRuntime::caller(const policy::UserContext& u) const {
    exec::CallerContext c;
    c.user_id = u.user_id;
    c.cognitive_mode = policy::to_string(u.mode);
    c.workspace_root = u.workspace;
    c.users_dir = config.users_dir();
    return c;
}

void CliContext::add_global_options(CLI::App& app) {
    app.add_option("--config", options.config_file, "Configuration file (default: $SKILLHOST_CONFIG or built-in defaults)")
        ->type_name("FILE");
    app.add_option("--home", options.home, "Home directory for state (default: $SKILLHOST_HOME or ~/.skillhost)")
        ->type_name("DIR");
}

Result<config::HostConfig> CliContext::load_config() const {
    config::ConfigSources sources;
    if (!options.config_file.empty()) sources.config_file = options.config_file;
    if (!options.home.empty()) sources.home = options.home;
    sources.executable = executable_;
    return config::load_host_config(sources);
}

namespace {

Status load_policy(HostRuntime& rt) {
    const auto& cfg = rt.config;
    auto users = policy::load_users(cfg.etc_dir / "users.yaml", cfg.default_workspace);
    if (!users) return users.error();
    rt.users = std::make_unique<policy::UserDirectory>(std::move(users.value()));
    auto pc = policy::load_policy_config(cfg.etc_dir / "policy.yaml");
    if (!pc) return pc.error();
    if (auto st = policy::check_policy_users(pc.value(), *rt.users); !st) return st.error();
    rt.policy_config = std::move(pc.value());
    auto modes = policy::ModeStore::open(cfg.database_file());
    if (!modes) return modes.error();
    rt.modes = std::move(modes.value());
    auto audit = policy::AuditLog::open(cfg.audit_dir(), rt.policy_config.audit);
    if (!audit) return audit.error();
    rt.audit = std::move(audit.value());
    policy::ApprovalQueueOptions qo;
    qo.ttl = rt.policy_config.approval_ttl;
    qo.audit = rt.audit.get();
    auto queue = policy::ApprovalQueue::open(cfg.database_file(), qo);
    if (!queue) return queue.error();
    rt.approvals = std::move(queue.value());
    rt.policy = std::make_unique<policy::PolicyEngine>(rt.policy_config);
    return {};
}

}  // namespace

Result<HostRuntime*> CliContext::runtime() {
    if (runtime_) return runtime_.get();
    auto cfg = load_config();
    if (!cfg) return cfg.error();
    auto rt = std::make_unique<HostRuntime>();
    rt->config = std::move(cfg.value());
    std::error_code ec;
    std::filesystem::create_directories(rt->config.plugin_cache_dir(), ec);
    if (ec) {
        return Error{"HOME_NOT_WRITABLE",
                     "cannot create " + rt->config.plugin_cache_dir().string() + ": " + ec.message(),
                     {},
                     {"pass a writable directory with --home or set SKILLHOST_HOME"}};
    }
    if (auto st = load_policy(*rt); !st) return st.error();
    rt->llm_observer = std::make_shared<AuditLlmObserver>(rt->audit.get());
    auto router = llm::ModelRouter::load(rt->config.etc_dir / "models.yaml", rt->llm_observer);
    if (!router) return router.error();
    rt->router = std::move(router.value());

    plugin::LoaderOptions lo;
    lo.cache_dir = rt->config.plugin_cache_dir();
    lo.completions = std::make_shared<llm::RouterCompletionService>(rt->router);
    rt->loader = std::make_unique<plugin::PluginLoader>(lo);
    auto report = plugin::discover_plugins(*rt->loader, rt->config.plugin_dirs);
    rt->catalog = std::make_shared<catalog::CatalogSnapshot>(1, std::move(report.plugins), std::move(report.failures));
    rt->executor = std::make_unique<exec::Executor>();

    exec::PipelineParts parts;
    parts.policy = rt->policy.get();
    parts.approvals = rt->approvals.get();
    parts.audit = rt->audit.get();
    parts.executor = rt->executor.get();
    parts.users_dir = rt->config.users_dir();
    const HostRuntime* raw = rt.get();
    parts.resolve_user = [raw](std::string_view id) { return policy::resolve_user_context(*raw->users, *raw->modes, id); };
    rt->pipeline = std::make_unique<exec::CallPipeline>(std::move(parts));
    runtime_ = std::move(rt);
    return runtime_.get();
}

}  // namespace skillhost::cli
