// The operator under a run lease (what every instance does on PostgreSQL; here the single-instance
// leases of a SQLite home, which fence the same way when a lease is taken again): each step is
// claimed and saved with its call in flight before the call, and saved with its result as soon as
// the call returns; a run whose lease is taken over stops without writing anything more; the
// instance that resumes it calls the in-flight step again with the same idempotency key and marks
// it retried, and never calls a step whose result was saved.
#include "operator_host.hpp"
#include "store/run_lease.hpp"

#include <gtest/gtest.h>

#include <functional>

namespace skillhost::testing {
namespace {

using namespace std::chrono_literals;
using store::RunStatus;

// Runs `on_action` when the run announces its `nth` action (once that action's step is claimed,
// before its call).
class ActionHook final : public op::RunEventSubscriber {
public:
    ActionHook(int nth, std::function<void(const op::RunEvent&)> on_action)
        : nth_(nth), on_action_(std::move(on_action)) {}
    void on_event(const op::RunEvent& event) override {
        if (event.type == op::RunEventType::action && ++seen_ == nth_) on_action_(event);
    }

private:
    int nth_;
    int seen_ = 0;
    std::function<void(const op::RunEvent&)> on_action_;
};

TEST(OperatorUnderALease, ARunWhoseLeaseIsTakenOverStopsWithoutWritingAndIsResumedFromTheStepInFlight) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")},
                       {"orchestrator", act("task_list", R"({"include_completed":true})")},
                       {"orchestrator", respond()}});
    auto leases = store::RunLeases::open(db::StorageLocation::sqlite(host.home() / "skillhost.db"), "instance-a", 60s);
    ASSERT_TRUE(leases.ok()) << leases.error().message;
    store::RunLeases* shared = leases->get();
    auto leased = host.operator_with([shared](op::OperatorParts& parts) {
        parts.leases = shared;
        parts.lease_heartbeat = 50ms;
    });

    // Another holder takes the lease as the run announces its second action: the first step has
    // run and its result was saved, the second is claimed and about to be called.
    ActionHook steal(2, [shared](const op::RunEvent& event) { ASSERT_TRUE(shared->acquire(event.run_id).ok()); });
    auto lost = leased->run("list my tasks", host.user(), {}, &steal);
    ASSERT_FALSE(lost.ok());
    EXPECT_EQ(lost.error().code, "RUN_LEASE_LOST") << lost.error().message;

    // What landed is what was saved under the lease before step 2's call: step 1 with its result,
    // step 2 in flight, with the plugin version it used; nothing of step 2's result.
    auto runs = host.runs().list();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 1u);
    store::Run stored = runs->front();
    EXPECT_EQ(stored.status, RunStatus::running);
    ASSERT_EQ(stored.steps.size(), 2u);
    EXPECT_TRUE(stored.steps[0].observation.has_value());
    ASSERT_TRUE(stored.steps[1].action.has_value());
    EXPECT_EQ(stored.steps[1].action->tool, "task_list");
    EXPECT_FALSE(stored.steps[1].observation.has_value());
    EXPECT_EQ(stored.plugin_versions.count("tasks"), 1u);

    // The sweeper of another instance marks it interrupted; this one resumes it.
    stored.status = RunStatus::interrupted;
    ASSERT_TRUE(host.runs().save(stored).ok());
    auto resumed = leased->resume_interrupted(stored.id);
    ASSERT_TRUE(resumed.ok()) << resumed.error().message;
    EXPECT_EQ(resumed->status, RunStatus::completed) << (resumed->error ? resumed->error->message : "");
    ASSERT_GE(resumed->steps.size(), 3u);
    EXPECT_TRUE(resumed->steps[0].warnings.empty()) << "step 1's saved result was not called again";
    const auto& retried = resumed->steps[1];
    ASSERT_TRUE(retried.observation.has_value());
    EXPECT_TRUE(retried.observation->success);
    ASSERT_EQ(retried.warnings.size(), 1u);
    EXPECT_NE(retried.warnings[0].find("retried"), std::string::npos) << retried.warnings[0];
    EXPECT_NE(retried.warnings[0].find(stored.id + ":2"), std::string::npos) << retried.warnings[0];
    EXPECT_EQ(host.runs().get(stored.id)->status, RunStatus::completed);
}

TEST(OperatorUnderALease, AFinishedRunIsSavedUnderItsLeaseAndALaterHolderFencesItOff) {
    OperatorHost host({{"orchestrator", act("task_list", "{}")}, {"orchestrator", respond()}});
    auto leases = store::RunLeases::open(db::StorageLocation::sqlite(host.home() / "skillhost.db"), "instance-a", 60s);
    ASSERT_TRUE(leases.ok()) << leases.error().message;
    store::RunLeases* shared = leases->get();
    auto leased = host.operator_with([shared](op::OperatorParts& parts) { parts.leases = shared; });
    auto run = leased->run("list my tasks", host.user());
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->status, RunStatus::completed);
    EXPECT_TRUE(run->steps[0].warnings.empty());
    EXPECT_EQ(host.runs().get(run->id)->status, RunStatus::completed);
    // Whoever takes the lease next holds it at a later epoch, fencing off the finished holder.
    auto again = shared->acquire(run->id);
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_GE(again->epoch, 2);
}

}  // namespace
}  // namespace skillhost::testing
