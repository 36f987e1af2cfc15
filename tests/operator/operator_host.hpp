// A complete host for operator tests: the real built-in plugins (tasks, fs, memory,
// conversational_response) loaded by the real loader, the real policy engine, approval queue and
// CallPipeline, run/guidance stores in a temporary skillhost.db, and a model router whose roles go
// to the builtin model unless a test gives it a script.
#pragma once

#include "exec/call_pipeline.hpp"
#include "exec/executor.hpp"
#include "llm/model_router.hpp"
#include "llm/scripted_backend.hpp"
#include "operator/operator.hpp"
#include "policy/approval_queue.hpp"
#include "policy/audit_log.hpp"
#include "policy/policy_engine.hpp"
#include "store/guidance_store.hpp"
#include "store/run_store.hpp"
#include "support/temp_dir.hpp"

#include <memory>
#include <string>
#include <vector>

namespace skillhost::testing {

// One scripted reply: for `role` (any when empty), the text the model answers; with `match`, only
// for a request whose last message matches it (a regex).
struct Reply {
    std::string role;
    std::string text;
    std::string match = {};
};

class OperatorHost {
public:
    // `script`: replies served in order per role; roles without replies use the builtin model.
    explicit OperatorHost(std::vector<Reply> script = {}, op::OperatorConfig config = {}, std::string policy_yaml = {});

    policy::UserContext user(policy::CognitiveMode mode = policy::CognitiveMode::agent,
                             manifest::TrustLevel trust = manifest::TrustLevel::supervised_auto) const;

    // A direct call through the pipeline (demo data: tasks, memories, files).
    exec::SkillResult call(const std::string& skill, const std::string& args_json);

    op::Operator& op() { return *operator_; }
    // A fresh Operator over the same database: what a restarted host sees.
    std::unique_ptr<op::Operator> restarted_operator();
    const exec::CallPipeline& pipeline() const { return *pipeline_; }
    const catalog::CatalogSnapshot& catalog() const { return *catalog_; }
    store::RunStore& runs() { return *runs_; }
    store::GuidanceStore& guidance() { return *guidance_; }
    std::shared_ptr<llm::ScriptedBackend> script() const { return script_; }
    std::vector<llm::ChatRequest> requests_for(const std::string& role) const;
    const std::filesystem::path& workspace() const { return workspace_; }
    const std::filesystem::path& home() const { return home_.path(); }
    // The audit log every call (and every grounding check) is written to: <home>/audit.
    std::filesystem::path audit_dir() const { return home_.path() / "audit"; }

    policy::CognitiveMode mode = policy::CognitiveMode::agent;
    manifest::TrustLevel trust = manifest::TrustLevel::supervised_auto;

private:
    op::OperatorParts parts() const;

    TempDir home_;
    std::filesystem::path workspace_;
    std::shared_ptr<llm::ModelRouter> router_;
    std::shared_ptr<llm::ScriptedBackend> script_;
    std::shared_ptr<catalog::CatalogSnapshot> catalog_;
    std::unique_ptr<policy::PolicyEngine> policy_;
    std::unique_ptr<policy::ApprovalQueue> approvals_;
    std::unique_ptr<policy::AuditLog> audit_;
    exec::Executor executor_;
    std::unique_ptr<exec::CallPipeline> pipeline_;
    std::unique_ptr<store::RunStore> runs_;
    std::unique_ptr<store::GuidanceStore> guidance_;
    op::OperatorConfig config_;
    std::unique_ptr<op::Operator> operator_;
};

// Records every event a run reports.
class EventLog final : public op::RunEventSubscriber {
public:
    void on_event(const op::RunEvent& event) override { events.push_back(event); }
    std::vector<std::string> types() const;
    bool has(op::RunEventType type, const std::string& text_part = {}) const;
    std::vector<op::RunEvent> events;
};

// Planner JSON for an action / a response.
std::string act(const std::string& tool, const std::string& args_json, const std::string& thought = "next step");
std::string respond(const std::string& style = "default", const std::string& thought = "the data answers the goal");

}  // namespace skillhost::testing
