#include "app/host_runtime.hpp"
#include "app/host_parts.hpp"
#include "app/error_codes.hpp"

#include "plugin/isolation_config.hpp"

#include "app/audit_llm_observer.hpp"
#include "app/chat_backends.hpp"
#include "app/plugin_storage_service.hpp"
#include "app/router_completion_service.hpp"
#include "app/storage_schema.hpp"
#include "db/sqlite_file_check.hpp"
#include "auth/user_context.hpp"

namespace skillhost::app {
namespace {

Status load_policy(HostParts& rt) {
    const auto& cfg = rt.config;
    auto users = auth::load_users(cfg.etc_dir / "users.yaml", cfg.default_workspace);
    if (!users) return users.error();
    rt.users = std::make_unique<auth::UserDirectory>(std::move(users.value()));
    auto pc = policy::load_policy_config(cfg.etc_dir / "policy.yaml");
    if (!pc) return pc.error();
    if (auto st = policy::check_policy_users(pc.value(), *rt.users); !st) return st.error();
    rt.policy_config = std::move(pc.value());
    const db::StorageLocation location = storage_location(cfg);
    auto store = policy::ModeStore::open(location);
    if (!store) return store.error();
    auto modes = policy::ModeCache::open(std::move(store.value()), location);
    if (!modes) return modes.error();
    rt.modes = std::move(modes.value());
    auto audit = open_audit_log(cfg, rt.policy_config.audit);
    if (!audit) return audit.error();
    rt.audit = std::move(audit.value());
    decisions::ApprovalQueueOptions qo;
    qo.ttl = rt.policy_config.approval_ttl;
    qo.require_approver = rt.policy_config.require_approver;
    qo.audit = rt.audit.get();
    auto queue = decisions::ApprovalQueue::open(location, qo);
    if (!queue) return queue.error();
    rt.approvals = std::move(queue.value());
    decisions::ElicitationQueueOptions eo;
    eo.ttl = rt.policy_config.approval_ttl;
    eo.audit = rt.audit.get();
    auto elicitations = decisions::ElicitationQueue::open(location, eo);
    if (!elicitations) return elicitations.error();
    rt.elicitations = std::move(elicitations.value());
    decisions::DefinitionChangeQueueOptions co;
    co.ttl = rt.policy_config.approval_ttl;
    co.audit = rt.audit.get();
    auto changes = decisions::DefinitionChangeQueue::open(location, co);
    if (!changes) return changes.error();
    rt.definition_changes = std::move(changes.value());
    auto pins = DefinitionPinStore::open(location, rt.definition_changes);
    if (!pins) return pins.error();
    rt.definition_pins = std::move(pins.value());
    auto secrets =
        UserSecretStore::open(location, cfg.secret_key_file.empty() ? cfg.home / "secret.key" : cfg.secret_key_file);
    if (!secrets) return secrets.error();
    rt.secrets = std::move(secrets.value());
    rt.policy = std::make_unique<policy::PolicyEngine>(rt.policy_config);
    return {};
}

}  // namespace

HostRuntime::HostRuntime(std::unique_ptr<HostParts> parts) : parts_(std::move(parts)) {}

HostRuntime::~HostRuntime() {
    // The watcher's thread may still be rebuilding the catalog; stop it before anything it uses goes.
    if (parts_->watched) parts_->watched->stop();
}

const config::HostConfig& HostRuntime::config() const {
    return parts_->config;
}

const policy::PolicyConfig& HostRuntime::policy_config() const {
    return parts_->policy_config;
}

const exec::CallPipeline& HostRuntime::calls() const {
    return *parts_->pipeline;
}

std::shared_ptr<const catalog::CatalogSnapshot> HostRuntime::snapshot() const {
    return parts_->watched ? parts_->watched->catalog().snapshot() : parts_->catalog;
}

reload::WatchedCatalog* HostRuntime::live_catalog() const {
    return parts_->watched.get();
}

store::GuidanceStore* HostRuntime::playbooks() const {
    return parts_->playbooks.get();
}

const auth::UserDirectory& HostRuntime::users() const {
    return *parts_->users;
}

Result<auth::UserContext> HostRuntime::user(std::string_view id) const {
    const HostParts& p = *parts_;
    std::string_view wanted = id;
    if (wanted.empty())
        wanted = p.users->find(p.config.default_user) ? std::string_view(p.config.default_user)
                                                      : std::string_view(p.users->first_owner().id);
    return user_exactly(wanted);
}

Result<auth::UserContext> HostRuntime::user_exactly(std::string_view id) const {
    return policy::resolve_user_context(*parts_->users, *parts_->modes, id);
}

Result<std::optional<auth::CognitiveMode>> HostRuntime::stored_mode(std::string_view user_id) const {
    return parts_->modes->stored_mode(user_id);
}

Status HostRuntime::set_mode(std::string_view user_id, auth::CognitiveMode mode) {
    return parts_->modes->set_mode(user_id, mode);
}

decisions::Resolver HostRuntime::resolver(const auth::UserContext& u) const {
    return decisions::Resolver{u.user_id, u.role, u.credential, false};
}

plugin::Call HostRuntime::caller(const auth::UserContext& u) const {
    plugin::Call c;
    c.user_id = u.user_id;
    c.cognitive_mode = auth::to_string(u.mode);
    c.workspace_root = u.workspace;
    return c;
}

policy::Explanation HostRuntime::explain(const auth::UserContext& user, const manifest::SkillSpec& skill,
                                         const boost::json::value& arguments) const {
    return parts_->policy->explain(user, skill, arguments);
}

std::vector<llm::RoleResolution> HostRuntime::models(std::string_view mode) const {
    return parts_->router->describe(mode);
}

llm::RoleTestResult HostRuntime::test_model(std::string_view role, std::string_view mode) {
    return llm::test_role(*parts_->router, role, mode);
}

std::filesystem::path HostRuntime::audit_directory() const {
    return parts_->audit ? parts_->audit->directory() : std::filesystem::path();
}

void HostRuntime::observe_calls(std::shared_ptr<exec::CallObserver> observer) {
    parts_->call_observers->add(std::move(observer));
}

void HostRuntime::observe_model_calls(std::shared_ptr<llm::LlmCallObserver> observer) {
    parts_->llm_observers->add(std::move(observer));
}

void HostRuntime::also_on_reload(std::function<void(const reload::ReloadReport&)> sink) {
    if (!parts_->watched) return;
    audit::AuditLog* audit = parts_->audit.get();
    parts_->watched->catalog().set_report_sink([audit, sink = std::move(sink)](const reload::ReloadReport& report) {
        (void)audit->append("reload", report.to_json());
        sink(report);
    });
}

Result<std::unique_ptr<HostRuntime>> load_host_runtime(config::HostConfig config, const RuntimeOptions& options) {
    auto rt = std::make_unique<HostParts>();
    rt->config = std::move(config);
    std::error_code ec;
    std::filesystem::create_directories(rt->config.plugin_cache_dir(), ec);
    if (ec) {
        return Error{errors::kHomeNotWritable,
                     "cannot create " + rt->config.plugin_cache_dir().string() + ": " + ec.message(),
                     {},
                     {"pass a writable directory with --home or set SKILLHOST_HOME"}};
    }
    if (options.refuse_damaged_store && rt->config.storage.backend != "postgres") {
        const auto problems = db::inspect_sqlite_files(rt->config.database_file());
        if (!problems.empty()) return db::damaged_store_error(rt->config.database_file(), problems);
    }
    if (auto st = load_policy(*rt); !st) return st.error();
    if (options.playbooks) {
        auto playbooks = store::GuidanceStore::open(storage_location(rt->config));
        if (!playbooks) return playbooks.error();
        rt->playbooks = std::move(playbooks.value());
    }
    rt->llm_observers = std::make_shared<llm::LlmCallObserverList>();
    rt->llm_observers->add(std::make_shared<AuditLlmObserver>(rt->audit.get()));
    auto router =
        llm::ModelRouter::load(rt->config.etc_dir / "models.yaml", rt->llm_observers, chat_backend_factories());
    if (!router) return router.error();
    rt->router = std::move(router.value());

    auto completions = std::make_shared<app::RouterCompletionService>(rt->router);
    // Plugins' records ("skillhost.storage/1") live beside the other shared state.
    auto opened_storage = PluginStorageService::open(storage_location(rt->config));
    if (!opened_storage) return opened_storage.error();
    std::shared_ptr<plugin::StorageService> plugin_storage = std::move(opened_storage.value());
    if (options.live_catalog) {
        reload::LiveCatalogOptions catalog_options = reload::live_catalog_options(rt->config);
        catalog_options.loader.completions = completions;
        catalog_options.loader.storage = plugin_storage;
        catalog_options.start_servers_in_background = options.start_servers_in_background;
        catalog_options.loader.pins = rt->definition_pins;
        catalog_options.loader.secrets = rt->secrets;
        catalog_options.loader.listing_user = rt->users->first_owner().id;
        catalog_options.loader.grants = rt->secrets;
        audit::AuditLog* audit = rt->audit.get();
        catalog_options.on_report = [audit](const reload::ReloadReport& report) {
            (void)audit->append("reload", report.to_json());
        };
        catalog_options.loader.isolation.on_supervision_event = [audit](const Error& event) {
            (void)audit->append("plugin_supervision", event.to_json());
        };
        rt->watched =
            std::make_unique<reload::WatchedCatalog>(std::move(catalog_options), reload::watcher_options(rt->config));
        rt->watched->catalog().rescan();
    } else {
        plugin::LoaderOptions lo;
        lo.cache_dir = rt->config.plugin_cache_dir();
        lo.completions = completions;
        lo.storage = plugin_storage;
        lo.pins = rt->definition_pins;
        lo.secrets = rt->secrets;
        lo.listing_user = rt->users->first_owner().id;
        lo.grants = rt->secrets;
        lo.packages_dir = rt->config.packages_dir;
        lo.isolation = plugin::isolation_options(rt->config);
        audit::AuditLog* audit = rt->audit.get();
        lo.isolation.on_supervision_event = [audit](const Error& event) {
            (void)audit->append("plugin_supervision", event.to_json());
        };
        rt->loader = std::make_unique<plugin::PluginLoader>(lo);
        auto report = plugin::discover_plugins(*rt->loader, rt->config.plugin_dirs);
        rt->catalog =
            std::make_shared<catalog::CatalogSnapshot>(1, std::move(report.plugins), std::move(report.failures));
    }
    rt->executor = std::make_unique<exec::Executor>();
    rt->call_observers = std::make_shared<exec::CallObserverList>();

    exec::PipelineParts parts;
    parts.policy = rt->policy.get();
    parts.approvals = rt->approvals.get();
    parts.elicitations = rt->elicitations.get();
    parts.audit = rt->audit.get();
    parts.executor = rt->executor.get();
    parts.users_dir = rt->config.users_dir();
    parts.observers = rt->call_observers;
    const HostParts* raw = rt.get();  // owned by the runtime, which owns the pipeline
    parts.resolve_user = [raw](std::string_view id) {
        return policy::resolve_user_context(*raw->users, *raw->modes, id);
    };
    rt->pipeline = std::make_unique<exec::CallPipeline>(std::move(parts));
    return std::make_unique<HostRuntime>(std::move(rt));
}

Status start_watching(HostRuntime& runtime) {
    reload::WatchedCatalog* watched = runtime.live_catalog();
    if (!watched) {
        return Error{
            errors::kCatalogNotLive, "this runtime was loaded with a fixed catalog; it has nothing to watch", {}, {}};
    }
    return watched->start();
}

}  // namespace skillhost::app
