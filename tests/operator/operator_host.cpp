#include "operator/operator_host.hpp"
#include "app/host_parts.hpp"

#include "auth/user_context.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace skillhost::testing {

namespace fs = std::filesystem;

namespace {

// etc/models.yaml: the builtin model for every role, except the roles the script answers, which go
// to the model "scripted". Its script file is a placeholder: the host replaces that backend with the
// test's own, whose requests the test reads back.
std::string models_yaml(const std::vector<Reply>& script) {
    std::string yaml = "models:\n  builtin: {backend: builtin}\n";
    if (!script.empty()) yaml += "  scripted: {backend: scripted, script: placeholder-script.yaml}\n";
    yaml += "roles:\n";
    std::vector<std::string> scripted;
    for (const auto& reply : script) {
        if (!reply.role.empty() && std::find(scripted.begin(), scripted.end(), reply.role) == scripted.end())
            scripted.push_back(reply.role);
    }
    for (const char* role : {"orchestrator", "persona", "classifier", "critic", "summarizer", "fallback"}) {
        const bool by_script = std::find(scripted.begin(), scripted.end(), role) != scripted.end();
        yaml += std::string("  ") + role + ": " + (by_script ? "scripted" : "builtin") + "\n";
    }
    for (const auto& role : scripted) {
        if (yaml.find("  " + role + ":") == std::string::npos) yaml += "  " + role + ": scripted\n";
    }
    return yaml;
}

}  // namespace

OperatorHost::OperatorHost(std::vector<Reply> script, op::OperatorConfig config, std::string policy_yaml)
    : home_("skillhost-operator"), config_(std::move(config)) {
    workspace_ = home_ / "workspace";
    const fs::path etc = home_ / "etc";
    fs::create_directories(workspace_);
    fs::create_directories(etc);
    write_users(trust_);
    if (!policy_yaml.empty()) write_file(etc / "policy.yaml", policy_yaml);
    write_file(etc / "models.yaml", models_yaml(script));
    if (!script.empty()) write_file(etc / "placeholder-script.yaml", "- response: placeholder\n");

    config::HostConfig host_config;
    host_config.etc_dir = etc;
    host_config.home = home_.path();
    host_config.plugin_dirs = {fs::path(SKILLHOST_BUILTIN_PLUGIN_DIR)};
    host_config.default_user = "alice";
    host_config.default_workspace = home_ / "workspaces";
    auto runtime = app::load_host_runtime(host_config);
    // Thrown, not ADD_FAILURE: a test must not go on with no host (gtest reports the exception).
    if (!runtime) throw std::runtime_error(runtime.error().code + ": " + runtime.error().message);
    runtime_ = std::move(runtime.value());
    EXPECT_EQ(app::parts_of(*runtime_).catalog->plugins().size(), 4u)
        << "tasks, fs, memory and conversational_response";

    if (!script.empty()) {
        std::vector<llm::ScriptEntry> entries;
        for (const auto& reply : script) {
            llm::ScriptEntry entry;
            if (!reply.role.empty()) entry.role = reply.role;
            entry.response = reply.text;
            if (!reply.match.empty()) entry.match = reply.match;
            entries.push_back(std::move(entry));
        }
        auto backend = llm::ScriptedBackend::create(std::move(entries));
        EXPECT_TRUE(backend.ok());
        script_ = backend.value();
        EXPECT_TRUE(app::parts_of(*runtime_).router->set_backend("scripted", script_).ok());
    }

    auto runs = store::RunStore::open(host_config.database_file());
    EXPECT_TRUE(runs.ok());
    runs_ = std::move(runs.value());
    auto guidance = store::GuidanceStore::open(host_config.database_file());
    EXPECT_TRUE(guidance.ok());
    guidance_ = std::move(guidance.value());
    operator_ = std::make_unique<op::Operator>(parts());
}

void OperatorHost::write_users(manifest::TrustLevel trust) const {
    std::string yaml = "users:\n";
    yaml += "  - id: alice\n    display_name: Alice\n    role: standard\n    default_mode: agent\n";
    yaml += std::string("    trust: ") + manifest::to_string(trust) + "\n";
    yaml += "    workspace: " + workspace_.string() + "\n";
    yaml += "  - id: owner\n    role: owner\n    trust: supervised_auto\n";  // users.yaml needs an owner
    write_file(home_ / "etc" / "users.yaml", yaml);
}

op::OperatorParts OperatorHost::parts() const {
    op::OperatorParts p;
    p.pipeline = app::parts_of(*runtime_).pipeline.get();
    p.router = app::parts_of(*runtime_).router.get();
    p.runs = runs_.get();
    p.guidance = guidance_.get();
    app::HostRuntime* runtime = runtime_.get();
    p.catalog = [runtime] { return runtime->snapshot(); };
    p.config = config_;
    return p;
}

std::unique_ptr<op::Operator> OperatorHost::operator_with(const std::function<void(op::OperatorParts&)>& adjust) const {
    op::OperatorParts adjusted = parts();
    adjust(adjusted);
    return std::make_unique<op::Operator>(std::move(adjusted));
}

std::unique_ptr<op::Operator> OperatorHost::restarted_operator() {
    auto runs = store::RunStore::open(home_ / "skillhost.db");
    EXPECT_TRUE(runs.ok());
    runs_ = std::move(runs.value());
    return std::make_unique<op::Operator>(parts());
}

auth::UserContext OperatorHost::user(auth::CognitiveMode mode, manifest::TrustLevel trust) {
    if (trust != trust_) {
        // users.yaml changed: read it again, as a restarted host would.
        write_users(trust);
        auto users = auth::load_users(home_ / "etc" / "users.yaml", home_ / "workspaces");
        EXPECT_TRUE(users.ok()) << (users ? "" : users.error().message);
        if (users) app::parts_of(*runtime_).users = std::make_unique<auth::UserDirectory>(std::move(users.value()));
        trust_ = trust;
    }
    EXPECT_TRUE(app::parts_of(*runtime_).modes->set_mode("alice", mode).ok());
    auto resolved = runtime_->user("alice");
    EXPECT_TRUE(resolved.ok()) << (resolved ? "" : resolved.error().message);
    return resolved ? resolved.value() : auth::UserContext{};
}

exec::SkillResult OperatorHost::call(const std::string& skill, const std::string& args_json) {
    const manifest::TrustLevel previous = trust_;
    exec::CallRequest request;
    request.skill_id = skill;
    request.args = boost::json::parse(args_json);
    request.user = user(auth::CognitiveMode::agent, manifest::TrustLevel::adaptive_auto);
    auto outcome = app::parts_of(*runtime_).pipeline->call(*app::parts_of(*runtime_).catalog, request);
    EXPECT_TRUE(outcome.result.ok) << skill << ": " << outcome.result.error.code << ": "
                                   << outcome.result.error.message;
    user(auth::CognitiveMode::agent, previous);
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
