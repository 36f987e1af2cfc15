// A complete host for operator tests, assembled the way `skillhost ask` assembles it: a temporary
// home with etc/users.yaml (the user "alice"), etc/policy.yaml and etc/models.yaml, opened by
// app::load_host_runtime (users, mode store, policy, audit log, approval queue, model router, the
// real built-in plugins from the build's plugin directory, executor and call pipeline), plus the run
// and guidance stores in its skillhost.db. Model roles go to the builtin model unless a test gives
// them a script.
#pragma once

#include "app/host_runtime.hpp"
#include "app/host_parts.hpp"
#include "exec/call_pipeline.hpp"
#include "llm/scripted_backend.hpp"
#include "operator/operator.hpp"
#include "store/guidance_store.hpp"
#include "store/run_store.hpp"
#include "support/temp_dir.hpp"

#include <functional>
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
    // `policy_yaml`: the text of etc/policy.yaml (none: the built-in default policy).
    explicit OperatorHost(std::vector<Reply> script = {}, op::OperatorConfig config = {}, std::string policy_yaml = {});

    // alice as the host resolves her (users.yaml and the mode store), after making `mode` her
    // stored mode (as `skillhost mode set` does) and `trust` her trust in users.yaml.
    auth::UserContext user(auth::CognitiveMode mode = auth::CognitiveMode::agent,
                           manifest::TrustLevel trust = manifest::TrustLevel::supervised_auto);

    // A direct call through the pipeline (demo data: tasks, memories, files), as alice with
    // adaptive_auto trust so that seeding needs no approval.
    exec::SkillResult call(const std::string& skill, const std::string& args_json);

    op::Operator& op() { return *operator_; }
    // A fresh Operator over the same database: what a restarted host sees.
    std::unique_ptr<op::Operator> restarted_operator();
    // An Operator over this host whose parts `adjust` changed (e.g. to drive runs under leases).
    std::unique_ptr<op::Operator> operator_with(const std::function<void(op::OperatorParts&)>& adjust) const;
    const exec::CallPipeline& pipeline() const { return *app::parts_of(*runtime_).pipeline; }
    const catalog::CatalogSnapshot& catalog() const { return *app::parts_of(*runtime_).catalog; }
    app::HostRuntime& runtime() { return *runtime_; }
    store::RunStore& runs() { return *runs_; }
    store::GuidanceStore& guidance() { return *guidance_; }
    std::shared_ptr<llm::ScriptedBackend> script() const { return script_; }
    std::vector<llm::ChatRequest> requests_for(const std::string& role) const;
    const std::filesystem::path& workspace() const { return workspace_; }
    const std::filesystem::path& home() const { return home_.path(); }
    // The audit log every call (and every grounding check) is written to: <home>/audit.
    std::filesystem::path audit_dir() const { return home_.path() / "audit"; }

private:
    op::OperatorParts parts() const;
    void write_users(manifest::TrustLevel trust) const;

    TempDir home_;
    std::filesystem::path workspace_;
    std::shared_ptr<llm::ScriptedBackend> script_;
    std::unique_ptr<app::HostRuntime> runtime_;
    manifest::TrustLevel trust_ = manifest::TrustLevel::supervised_auto;
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
