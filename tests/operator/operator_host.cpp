#include "operator/operator_host.hpp"

#include "app/router_completion_service.hpp"
#include "plugin/plugin_loader.hpp"
#include "policy/policy_config.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace skillhost::testing {

namespace fs = std::filesystem;

OperatorHost::OperatorHost(std::vector<Reply> script, op::OperatorConfig config, std::string policy_yaml)
    : home_("skillhost-operator"), config_(std::move(config)) {
    workspace_ = home_ / "workspace";
    fs::create_directories(workspace_);

    llm::ModelsConfig models = llm::default_models_config();
    if (!script.empty()) {
        llm::ModelSpec scripted;
        scripted.name = "scripted";
        scripted.backend = "scripted";
        models.models.emplace("scripted", scripted);
        std::vector<llm::ScriptEntry> entries;
        for (const auto& reply : script) {
            llm::ScriptEntry entry;
            if (!reply.role.empty()) {
                entry.role = reply.role;
                models.roles[reply.role] = "scripted";
            }
            entry.response = reply.text;
            if (!reply.match.empty()) entry.match = reply.match;
            entries.push_back(std::move(entry));
        }
        auto backend = llm::ScriptedBackend::create(std::move(entries));
        EXPECT_TRUE(backend.ok());
        script_ = backend.value();
    }
    router_ = std::make_shared<llm::ModelRouter>(models);
    if (script_) {
        EXPECT_TRUE(router_->set_backend("scripted", script_).ok());
    }

    plugin::PluginLoader loader(
        plugin::LoaderOptions{home_ / "plugin-cache", std::make_shared<app::RouterCompletionService>(router_)});
    std::vector<std::shared_ptr<plugin::LoadedPlugin>> plugins;
    for (const char* name : {"tasks", "fs", "memory", "conversational_response"}) {
        auto loaded = loader.load_file(fs::path(SKILLHOST_BUILTIN_PLUGIN_DIR) / (std::string(name) + ".yaml"));
        if (!loaded) {
            ADD_FAILURE() << name << ": " << loaded.error().code << ": " << loaded.error().message;
            continue;
        }
        plugins.push_back(loaded.value());
    }
    catalog_ = std::make_shared<catalog::CatalogSnapshot>(1, std::move(plugins), std::vector<plugin::PluginFailure>{});

    policy::PolicyConfig policy_config;
    if (!policy_yaml.empty()) {
        auto parsed = policy::parse_policy_config(policy_yaml, home_ / "policy.yaml");
        EXPECT_TRUE(parsed.ok()) << (parsed ? "" : parsed.error().message);
        if (parsed) policy_config = parsed.value();
    }
    policy_ = std::make_unique<policy::PolicyEngine>(policy_config);
    auto queue = policy::ApprovalQueue::open(home_ / "skillhost.db");
    EXPECT_TRUE(queue.ok());
    approvals_ = std::move(queue.value());

    auto audit = policy::AuditLog::open(audit_dir());
    EXPECT_TRUE(audit.ok());
    if (audit) audit_ = std::move(audit.value());

    exec::PipelineParts pipeline_parts;
    pipeline_parts.audit = audit_.get();
    pipeline_parts.policy = policy_.get();
    pipeline_parts.approvals = approvals_.get();
    pipeline_parts.executor = &executor_;
    pipeline_parts.users_dir = home_ / "users";
    pipeline_parts.resolve_user = [this](std::string_view id) -> Result<policy::UserContext> {
        policy::UserContext u = user(mode, trust);
        u.user_id = std::string(id);
        return u;
    };
    pipeline_ = std::make_unique<exec::CallPipeline>(pipeline_parts);

    auto runs = store::RunStore::open(home_ / "skillhost.db");
    EXPECT_TRUE(runs.ok());
    runs_ = std::move(runs.value());
    auto guidance = store::GuidanceStore::open(home_ / "skillhost.db");
    EXPECT_TRUE(guidance.ok());
    guidance_ = std::move(guidance.value());
    operator_ = std::make_unique<op::Operator>(parts());
}

op::OperatorParts OperatorHost::parts() const {
    op::OperatorParts p;
    p.pipeline = pipeline_.get();
    p.router = router_.get();
    p.runs = runs_.get();
    p.guidance = guidance_.get();
    auto snapshot = catalog_;
    p.catalog = [snapshot] { return std::shared_ptr<const catalog::CatalogSnapshot>(snapshot); };
    p.config = config_;
    return p;
}

std::unique_ptr<op::Operator> OperatorHost::restarted_operator() {
    auto runs = store::RunStore::open(home_ / "skillhost.db");
    EXPECT_TRUE(runs.ok());
    runs_ = std::move(runs.value());
    return std::make_unique<op::Operator>(parts());
}

policy::UserContext OperatorHost::user(policy::CognitiveMode m, manifest::TrustLevel t) const {
    policy::UserContext u;
    u.user_id = "alice";
    u.role = policy::Role::standard;
    u.trust = t;
    u.mode = m;
    u.workspace = workspace_;
    return u;
}

exec::SkillResult OperatorHost::call(const std::string& skill, const std::string& args_json) {
    exec::CallRequest request;
    request.skill_id = skill;
    request.args = boost::json::parse(args_json);
    request.user = user(policy::CognitiveMode::agent, manifest::TrustLevel::adaptive_auto);
    auto outcome = pipeline_->call(*catalog_, request);
    EXPECT_TRUE(outcome.result.ok) << skill << ": " << outcome.result.error.code << ": "
                                   << outcome.result.error.message;
    return outcome.result;
}

std::vector<llm::ChatRequest> OperatorHost::requests_for(const std::string& role) const {
    std::vector<llm::ChatRequest> out;
    if (!script_) return out;
    for (auto& request : script_->requests()) {
        if (request.role == role) out.push_back(request);
    }
    return out;
}

std::vector<std::string> EventLog::types() const {
    std::vector<std::string> out;
    for (const auto& e : events) out.emplace_back(op::to_string(e.type));
    return out;
}

bool EventLog::has(op::RunEventType type, const std::string& text_part) const {
    for (const auto& e : events) {
        if (e.type == type && e.text.find(text_part) != std::string::npos) return true;
    }
    return false;
}

std::string act(const std::string& tool, const std::string& args_json, const std::string& thought) {
    return boost::json::serialize(
        boost::json::object{{"thought", thought},
                            {"action", boost::json::object{{"tool", tool}, {"args", boost::json::parse(args_json)}}}});
}

std::string respond(const std::string& style, const std::string& thought) {
    return boost::json::serialize(
        boost::json::object{{"thought", thought}, {"respond", true}, {"response_style", style}});
}

}  // namespace skillhost::testing
