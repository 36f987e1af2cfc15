// The call pipeline the benchmarks of this folder run calls through, in-process, as every front
// end has it: the real `echo` fixture plugin, users, policy, the mode cache, the audit log, the
// approval queue and the executor, in a scratch home.
#pragma once

#include "generated_plugins.hpp"

#include "exec/call_pipeline.hpp"
#include "plugin/plugin_loader.hpp"
#include "policy/mode_cache.hpp"
#include "policy/mode_store.hpp"
#include "policy/policy_config.hpp"
#include "auth/users.hpp"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <memory>

namespace skillhost::bench {

namespace fs = std::filesystem;

template <typename T>
inline T must(Result<T> result, const char* what) {
    if (!result) {
        std::cerr << what << ": " << result.error().message << "\n";
        std::exit(1);
    }
    return std::move(result.value());
}

struct Pipeline {
    ScratchDir home{"skillhost-bench-pipeline"};
    plugin::PluginLoader loader{plugin::LoaderOptions{home.path() / "plugin-cache", {}}};
    std::shared_ptr<catalog::CatalogSnapshot> catalog;
    std::unique_ptr<auth::UserDirectory> users;
    std::unique_ptr<policy::ModeCache> modes;
    std::unique_ptr<audit::AuditLog> audit;
    std::unique_ptr<decisions::ApprovalQueue> approvals;
    std::unique_ptr<policy::PolicyEngine> engine;
    exec::Executor executor;
    std::unique_ptr<exec::CallPipeline> pipeline;
    exec::CallRequest request;

    Pipeline() {
        auto echo = must(loader.load_file(fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo" / "echo.yaml"),
                         "cannot load the echo fixture (build fixture_echo first)");
        catalog =
            std::make_shared<catalog::CatalogSnapshot>(1, std::vector{echo}, std::vector<plugin::PluginFailure>{});
        users = std::make_unique<auth::UserDirectory>(
            must(auth::parse_users("users:\n  - {id: owner, role: owner, trust: supervised_auto}\n",
                                   home.path() / "users.yaml", home.path() / "workspace"),
                 "users"));
        engine = std::make_unique<policy::PolicyEngine>(
            must(policy::parse_policy_config("global:\n  deny:\n    - \"add(a=13)\"\n", home.path() / "policy.yaml"),
                 "policy"));
        // As in the host: the mode cache in front of the store, consulted by every call.
        modes = must(policy::ModeCache::open(must(policy::ModeStore::open(home.path() / "skillhost.db"), "modes"),
                                             home.path() / "skillhost.db-modes"),
                     "mode cache");
        audit = must(audit::AuditLog::open(home.path() / "audit"), "audit");
        decisions::ApprovalQueueOptions qo;
        qo.audit = audit.get();
        approvals = must(decisions::ApprovalQueue::open(home.path() / "skillhost.db", qo), "approvals");
        exec::PipelineParts parts;
        parts.policy = engine.get();
        parts.approvals = approvals.get();
        parts.audit = audit.get();
        parts.executor = &executor;
        parts.users_dir = home.path() / "users";
        parts.resolve_user = [this](std::string_view id) { return policy::resolve_user_context(*users, *modes, id); };
        pipeline = std::make_unique<exec::CallPipeline>(std::move(parts));
        request.skill_id = "noop";
        request.user = must(policy::resolve_user_context(*users, *modes, "owner"), "user");
        request.requested_by = auth::Requester::api();
    }
};

// The same call started on the caller's own thread (RunOn::this_thread): no hand-off at all; the
// deadline watcher would answer a late call.
inline void calls_on_caller_thread(benchmark::State& state, Pipeline& p) {
    for (auto _ : state) {
        exec::CallOutcome outcome;
        p.pipeline->start(
            *p.catalog, p.request, [&outcome](exec::CallOutcome o) { outcome = std::move(o); },
            exec::RunOn::this_thread);
        if (!outcome.result.ok) state.SkipWithError(outcome.result.error.message.c_str());
        benchmark::DoNotOptimize(outcome);
    }
}

}  // namespace skillhost::bench
