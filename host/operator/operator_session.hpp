// One run's working state while the operator drives it (shared by the ReAct and lightweight paths).
#pragma once

#include "operator/operator.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace skillhost::op {

struct Operator::Session {
    Session(store::Run& r, policy::UserContext u, std::shared_ptr<const catalog::CatalogSnapshot> c,
            RunEventSubscriber* e)
        : run(r), user(std::move(u)), catalog(std::move(c)), events(e) {}

    store::Run& run;
    policy::UserContext user;
    std::shared_ptr<const catalog::CatalogSnapshot> catalog;
    std::shared_ptr<const PlannerCatalog> planner_catalog;
    RunEventSubscriber* events = nullptr;
    int max_steps = 10;
    std::string playbooks;
    std::string retry_context;
    std::vector<std::string> pending_warnings;
    bool finished = false;  // the run left `running` (completed, paused, failed, ...)

    void emit(RunEventType type, std::string text, boost::json::object data = {}) const {
        if (!events) return;
        RunEvent event{type, run.id, static_cast<int>(run.steps.size()), std::move(text), std::move(data)};
        events->on_event(event);
    }
    std::vector<store::ScratchpadEntry> attempt_steps() const {
        return {run.steps.begin() + static_cast<std::ptrdiff_t>(std::min(run.attempt_first_step, run.steps.size())),
                run.steps.end()};
    }
    void add_tokens(const std::string& role, std::int64_t prompt, std::int64_t completion) {
        auto& usage = run.tokens[role];
        usage.prompt += prompt;
        usage.completion += completion;
        usage.calls += 1;
    }
};

}  // namespace skillhost::op
