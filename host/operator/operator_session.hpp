// One run's working state while the operator drives it (shared by the ReAct and lightweight paths).
#pragma once

#include "operator/operator.hpp"
#include "operator/planner_prompt.hpp"
#include "operator/run_lease_hold.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <span>

namespace skillhost::op {

// The event of a run whose step's skill asked its user `asked` (ELICITATION_REQUIRED's details).
RunEvent input_required_event(const store::Run& run, const store::Action& action, const std::string& elicitation_id,
                              const Error& asked);

struct Operator::Session {
    Session(store::Run& r, auth::UserContext u, std::shared_ptr<const catalog::CatalogSnapshot> c,
            RunEventSubscriber* e)
        : run(r), user(std::move(u)), catalog(std::move(c)), events(e) {}

    store::Run& run;
    auth::UserContext user;
    std::shared_ptr<const catalog::CatalogSnapshot> catalog;
    std::shared_ptr<const PlannerCatalog> planner_catalog;
    RunEventSubscriber* events = nullptr;
    int max_steps = 10;
    std::string playbooks;
    std::string retry_context;
    std::vector<std::string> pending_warnings;
    std::size_t last_prompt_chars = 0;  // the last planner prompt, for --debug
    std::string last_planner_response;
    std::shared_ptr<std::atomic<bool>> cancel;
    bool planner_reads_context = true;  // the orchestrator's backend reads the structured context
    bool finished = false;              // the run left `running` (completed, paused, failed, ...)
    RunLeaseHold* lease = nullptr;      // with leases: this run's (owned by drive)
    bool lease_lost = false;            // another instance took the run over: write nothing more

    void emit(RunEventType type, std::string text, boost::json::object data = {}) const {
        emit_at(static_cast<int>(run.steps.size()), type, std::move(text), std::move(data));
    }
    // `step`: the steps done before the one the event is about.
    void emit_at(int step, RunEventType type, std::string text, boost::json::object data = {}) const {
        if (!events) return;
        RunEvent event{type, run.id, step, std::move(text), std::move(data)};
        event.lease_epoch = lease_epoch();
        events->on_event(event);
    }
    std::int64_t lease_epoch() const { return lease ? lease->epoch() : 0; }
    // Valid until the next step is appended.
    std::span<const store::ScratchpadEntry> attempt_steps() const {
        const std::size_t first = std::min(run.attempt_first_step, run.steps.size());
        return std::span<const store::ScratchpadEntry>(run.steps).subspan(first);
    }
    // action_key() and the serialized raw result of every step, computed once per step (the loop
    // guard compares each new action with all earlier ones).
    const std::string& key_of(std::size_t index) {
        sync_index();
        return keys_[index];
    }
    // condensed_step() of this attempt's steps, in order.
    std::span<const std::string> attempt_condensed() {
        sync_index();
        const std::size_t first = std::min(run.attempt_first_step, condensed_.size());
        return std::span<const std::string>(condensed_).subspan(first);
    }
    const std::string& result_of(std::size_t index) {
        sync_index();
        return results_[index];
    }
    void add_tokens(const std::string& role, std::int64_t prompt, std::int64_t completion) {
        auto& usage = run.tokens[role];
        usage.prompt += prompt;
        usage.completion += completion;
        usage.calls += 1;
    }

private:
    void sync_index() {
        for (std::size_t i = keys_.size(); i < run.steps.size(); ++i) {
            const auto& step = run.steps[i];
            keys_.push_back(step.action ? action_key(*step.action) : std::string());
            results_.push_back(step.observation ? boost::json::serialize(step.observation->raw) : std::string());
            condensed_.push_back(condensed_step(step));
        }
    }
    std::vector<std::string> keys_;
    std::vector<std::string> results_;
    std::vector<std::string> condensed_;
};

}  // namespace skillhost::op
