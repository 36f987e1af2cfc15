// The operator: turns a goal into skill calls and an answer grounded in what the skills returned.
//
// Dual and agent modes run the ReAct loop (plan -> act through the CallPipeline -> observe, until
// the planner responds), with the lightweight fast path for casual messages; emulation mode runs
// the lightweight single-step operator over read-only skills. Every tool call goes through
// CallPipeline::call, so policy, approvals and audit apply exactly as for a direct call. Every run
// is persisted after each step; a run paused for approval or guidance resumes from its record.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "exec/call_pipeline.hpp"
#include "llm/model_router.hpp"
#include "operator/operator_config.hpp"
#include "operator/run_events.hpp"
#include "auth/user_context.hpp"
#include "store/guidance_store.hpp"
#include "store/run_lease.hpp"
#include "store/run_store.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::op {

class RunLeaseHold;

struct OperatorParts {
    const exec::CallPipeline* pipeline = nullptr;  // required
    llm::ModelRouter* router = nullptr;            // required
    store::RunStore* runs = nullptr;               // required
    store::GuidanceStore* guidance = nullptr;      // optional: no guidance learning without it
    // Optional: runs are driven under a lease (several instances on one database). Each skill
    // call's step is claimed and the run saved under the lease before the call; a run whose
    // lease is lost stops without writing. Null: runs are saved when they start, pause or end.
    store::RunLeases* leases = nullptr;
    std::chrono::milliseconds lease_heartbeat{10000};  // how often a held lease is extended
    // The catalog as it is now (a reload may swap it between runs or steps).
    std::function<std::shared_ptr<const catalog::CatalogSnapshot>()> catalog;
    OperatorConfig config;
};

struct RunOptions {
    std::string id;                    // the run's id; empty: a new one (store::new_id("run"))
    std::vector<std::string> history;  // earlier turns of the conversation, oldest first
    int max_steps = 0;                 // 0: the config's
    // Set from another thread to stop the run: the current model request and skill call are
    // cancelled and the run ends `cancelled`. May be null.
    std::shared_ptr<std::atomic<bool>> cancel;
};

// The skill that writes final answers; never offered to the planner as a tool.
inline constexpr std::string_view kResponseSkill = "conversational_response";

class Operator {
public:
    explicit Operator(OperatorParts parts);

    // GOAL_TOO_LONG when `goal` has more characters than operator.yaml's max_goal_chars: what the
    // limit is and how to shorten. Front ends check before they accept a run; run() checks too.
    Status check_goal(std::string_view goal) const;
    // check_goal, and MISSING_SCOPE when the user's credential may not call skills (a run would
    // only fail at its first call, after spending model time).
    Status check_start(std::string_view goal, const auth::UserContext& user) const;

    // Runs `goal` for `user` in the user's mode. The returned run is also persisted. Errors only when
    // the run cannot even be stored; everything that goes wrong inside a run is in run.error.
    Result<store::Run> run(std::string_view goal, const auth::UserContext& user, const RunOptions& options = {},
                           RunEventSubscriber* events = nullptr);
    // run() in two halves, for a front end that answers "accepted" only once the run is stored:
    // open_run() checks the start and stores the new run's record (its errors are the client's),
    // drive_opened() then runs it as run() would.
    Result<store::Run> open_run(std::string_view goal, const auth::UserContext& user, const RunOptions& options);
    Result<store::Run> drive_opened(store::Run run, const auth::UserContext& user, const RunOptions& options,
                                    RunEventSubscriber* events = nullptr);

    // Continues a run that waited for approval, with the approved call's real result or the
    // rejection. RUN_NOT_FOUND, RUN_NOT_AWAITING_APPROVAL, APPROVAL_STILL_PENDING.
    // `cancel` as in RunOptions.
    Result<store::Run> resume_after_approval(std::string_view run_id, RunEventSubscriber* events = nullptr,
                                             std::shared_ptr<std::atomic<bool>> cancel = nullptr);

    // Continues a run that waited for its user's answer, once the question is settled: the step
    // ran again with the answer (or the decline or cancel) when it was given, and its result is
    // the step's observation. A step that asked a further question (or now needs approval) keeps
    // the run waiting on that. An expired question is a failed observation, never an invented
    // answer. RUN_NOT_FOUND, RUN_NOT_AWAITING_INPUT, ELICITATION_STILL_PENDING, RUN_ALREADY_RESUMED.
    Result<store::Run> resume_after_input(std::string_view run_id, RunEventSubscriber* events = nullptr,
                                          std::shared_ptr<std::atomic<bool>> cancel = nullptr);

    // Continues an interrupted run (its process died) from its last saved step; a step whose call
    // was in flight runs again with the same idempotency key. RUN_NOT_FOUND, RUN_NOT_INTERRUPTED,
    // RUN_ALREADY_RESUMED (another process resumed it first), RUN_PLUGIN_VERSION_MISSING (also
    // recorded in the run, which stays interrupted for an instance that has the versions),
    // RUN_LEASE_HELD (with leases: the instance that drove it has not yet let its lease expire).
    Result<store::Run> resume_interrupted(std::string_view run_id, RunEventSubscriber* events = nullptr,
                                          std::shared_ptr<std::atomic<bool>> cancel = nullptr);
    // `runs resume`: an interrupted run continues from its last saved step, a run awaiting input
    // as resume_after_input, any other run as resume_after_approval. Resuming is a compare-and-set on the stored status: of two processes
    // resuming one run, the second gets RUN_ALREADY_RESUMED.
    Result<store::Run> resume(std::string_view run_id, RunEventSubscriber* events = nullptr,
                              std::shared_ptr<std::atomic<bool>> cancel = nullptr);

    // Continues a needs_guidance run with the user's advice; the guidance is stored with its situation
    // and, when the resumed run succeeds, becomes a playbook. RUN_NOT_FOUND, RUN_NOT_WAITING_FOR_GUIDANCE,
    // GUIDANCE_EMPTY.
    Result<store::Run> guide(std::string_view run_id, std::string_view text, RunEventSubscriber* events = nullptr,
                             std::shared_ptr<std::atomic<bool>> cancel = nullptr);

    // RUN_PLUGIN_VERSION_MISSING when this host does not have loaded every plugin version the
    // run's steps called, so another instance should continue it.
    Status can_continue_here(const store::Run& run) const;
    // Whether resume() would continue `run` now: it is interrupted, or it waits on an approval or a
    // question that has ended (executed, failed, rejected, expired, declined: the outcome becomes
    // its step's observation). APPROVAL_STILL_PENDING, ELICITATION_STILL_PENDING while a person
    // may still act; RUN_NOT_RESUMABLE for a run in any other state; RUN_PLUGIN_VERSION_MISSING
    // when this host lacks a plugin version the run's steps used (another instance may have it).
    Status resumable(const store::Run& run) const;

    const OperatorConfig& config() const { return parts_.config; }

    // Grounding checks since this operator was made, for /metrics.
    struct GroundingCounts {
        std::uint64_t checks = 0;       // model answers checked against their observations
        std::uint64_t failures = 0;     // first answers with unsupported items
        std::uint64_t regenerated = 0;  // ... whose one regeneration passed
        std::uint64_t withheld = 0;     // ... where the user got the observations instead
    };
    GroundingCounts grounding_counts() const {
        return {grounding_counts_.checks.load(), grounding_counts_.failures.load(),
                grounding_counts_.regenerated.load(), grounding_counts_.withheld.load()};
    }

    // The planner's view of the catalog for this user (text and builtin-backend context), cached per
    // catalog version and mode. Public for the CLI's --debug and the benchmarks.
    struct PlannerCatalog {
        std::string text;
        boost::json::array tools;  // [{id, description, inputs, examples, read_only}]
    };
    std::shared_ptr<const PlannerCatalog> planner_catalog(const catalog::CatalogSnapshot& catalog,
                                                          const auth::UserContext& user);

private:
    struct Session;  // one attempt's working state (defined in operator.cpp)

    // With parts_.leases: the run's lease, taken before the run is claimed or driven (null without
    // leases). Makes `cancel` when it is null, so a lost lease can stop the run.
    Result<std::unique_ptr<RunLeaseHold>> hold_lease(std::string_view run_id,
                                                     std::shared_ptr<std::atomic<bool>>& cancel);
    // Before a run that waited on a person (an approval, a question) continues: the plugin versions
    // its steps used are here, and its lease is held.
    Result<std::unique_ptr<RunLeaseHold>> lease_to_continue(const store::Run& run,
                                                            std::shared_ptr<std::atomic<bool>>& cancel);
    // Takes the run from `waited` (compare-and-set), tells `events` the resumed observation, and
    // drives it on.
    Result<store::Run> claim_and_drive(store::Run& run, store::RunStatus waited, const auth::UserContext& user,
                                       RunEventSubscriber* events, std::shared_ptr<std::atomic<bool>> cancel,
                                       std::unique_ptr<RunLeaseHold> lease);
    // `retry_pending_step`: a step saved with its action but no observation (the instance that ran
    // it stopped mid-call) runs again first.
    Result<store::Run> drive(store::Run& run, const auth::UserContext& user, RunEventSubscriber* events, int max_steps,
                             std::shared_ptr<std::atomic<bool>> cancel, std::unique_ptr<RunLeaseHold> lease,
                             bool retry_pending_step = false);
    // Saves the run, under its lease when it has one.
    Status save_run(Session& session);
    // Before a skill call with a lease: claims the step and saves the run with the step in flight
    // (and the plugin versions it uses). False when the run must stop (lease lost, or failed).
    bool claim_step(Session& session, store::ScratchpadEntry& entry);
    // Without a lease (SQLite): saves the run with `entry` in flight; false (the run failed) if it
    // could not be saved.
    bool save_pending_step(Session& session, const store::ScratchpadEntry& entry);
    // The lease is gone: the run stops here without writing anything more.
    void stop_lease_lost(Session& session);
    bool stop_if_cancelled(Session& session);
    void react(Session& session);
    void lightweight(Session& session, bool full_loop_allowed);
    bool plan_step(Session& session, struct PlannerOutput& out);
    // `thought_data`: the planner's thought event to report with the action once the step is
    // claimed (none for a step retried after a takeover).
    bool execute_action(Session& session, std::string thought, store::Action action,
                        std::optional<boost::json::object> thought_data = std::nullopt);
    void finish_with_answer(Session& session, std::string style, std::string instructions = {});
    // The conversational_response skill's answer; nullopt (and a warning) when it gave none.
    std::optional<std::string> write_answer(Session& session, const boost::json::object& args);
    // Checks run.answer against the observations; regenerates once, then withholds it.
    void ground_answer(Session& session, boost::json::object args, const std::vector<store::ScratchpadEntry>& observed);
    void finish_stuck(Session& session, std::string reason);
    void finish_failed(Session& session, Error error);
    bool pause_for_approval(Session& session, std::string approval_id, const store::Action& action, Error error);
    // The step's skill asked its user a question (queued as `elicitation_id`): the run waits.
    bool pause_for_input(Session& session, std::string elicitation_id, const store::Action& action, Error error);
    void learn_from_guidance(store::Run& run);
    Result<auth::UserContext> user_for(const store::Run& run) const;
    std::string playbook_text(store::Run& run, const auth::UserContext& user);

    OperatorParts parts_;
    std::mutex catalog_cache_mutex_;
    std::map<std::string, std::shared_ptr<const PlannerCatalog>> catalog_cache_;
    struct {
        std::atomic<std::uint64_t> checks{0}, failures{0}, regenerated{0}, withheld{0};
    } grounding_counts_;
};

}  // namespace skillhost::op
