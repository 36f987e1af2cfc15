// The one durable state machine behind every kind of pending decision, in skillhost.db or in
// PostgreSQL (shared by every instance). Every transition is a compare-and-set on the row's state
// committed on its own, so of two people (threads, processes, instances) deciding one thing exactly
// one decision counts, and nothing is claimed after it expired or was rejected. No transaction is
// open while the caller then runs the call that follows a claim.
//
// One PendingDecisions serves one kind (its DecisionKindRules say how that kind names its states,
// its errors and its audit records); the queues of each kind (ApprovalQueue, ElicitationQueue) add
// who may decide and what a decision must carry.
#pragma once

#include "base/error.hpp"
#include "db/backend_connection.hpp"
#include "decisions/decision_kinds.hpp"
#include "decisions/pending_decision.hpp"
#include "decisions/process_identity.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::audit {
class AuditLog;
}  // namespace skillhost::audit

namespace skillhost::decisions {

struct PendingDecisionsOptions {
    std::chrono::milliseconds ttl = std::chrono::hours(24);
    std::function<TimePoint()> clock;  // tests inject one; empty: the system clock
    audit::AuditLog* audit = nullptr;  // every transition is also appended here; not owned
};

struct DecisionFilter {
    std::optional<std::string> user_id;
    std::vector<DecisionState> states;  // empty: every state
    std::size_t limit = 0;              // 0: no limit; newest first either way
};

class PendingDecisions {
public:
    PendingDecisions(std::unique_ptr<db::BackendConnection> connection, const DecisionKindRules& rules,
                     PendingDecisionsOptions options);

    TimePoint now() const;
    std::chrono::milliseconds ttl() const { return options_.ttl; }
    const DecisionKindRules& rules() const { return rules_; }

    // Stores `draft` as a new pending decision of this kind (id, times and state are set here) and
    // audits it. Returns what was stored.
    Result<PendingDecision> add(PendingDecision draft);
    // How many decisions of this kind wait for `user_id`.
    Result<std::int64_t> count_pending(std::string_view user_id) const;

    // The kind's not_found error when there is no such id (of this kind).
    Result<PendingDecision> get(std::string_view id) const;
    Result<std::vector<PendingDecision>> list(const DecisionFilter& filter) const;

    // What a person sees, the same for every front end: decisions past their expiry are marked
    // expired first; a user sees their own, an owner everyone's. Another user's decision is the
    // kind's not_found, so nobody learns the ids of other users' decisions.
    Result<PendingDecision> get_visible(std::string_view id, std::string_view viewer, bool viewer_is_owner);
    // `filter` narrowed to the viewer's own decisions unless the viewer is an owner.
    Result<std::vector<PendingDecision>> list_visible(DecisionFilter filter, std::string_view viewer,
                                                      bool viewer_is_owner);

    // The error that stops `record` from being decided by `actor`: already decided (as it is now),
    // or past its expiry (then it is marked expired here). nullopt: it is open.
    std::optional<Error> closed(PendingDecision& record, std::string_view actor);
    // pending -> claimed by `actor`, carrying `answer`; the claim names this process, so a claim
    // left by a process that died is found by recover_interrupted(). `record` is what the caller
    // read and checked (closed() said it is open); the loser of a race gets already_decided.
    Result<PendingDecision> claim(PendingDecision record, std::string_view actor, boost::json::value answer);
    // pending -> rejected by `actor`.
    Result<PendingDecision> reject(PendingDecision record, std::string_view actor, std::string_view reason);

    // claimed -> succeeded (ok) or failed, with what the call returned. An outcome that cannot be
    // stored because the database refuses writes (full, read-only, unreachable) is kept in memory
    // (at most max_unrecorded_outcomes) and stored by the next get(), list(), complete() or
    // record_unrecorded_outcomes() once it takes writes again; a host that stops first leaves the
    // row claimed, for recover_interrupted().
    Result<PendingDecision> complete(std::string_view id, bool ok, const boost::json::value& result,
                                     std::string_view reason);
    // Returns how many outcomes still wait.
    std::size_t record_unrecorded_outcomes() const;
    static constexpr std::size_t max_unrecorded_outcomes = 1024;

    // pending decisions whose expires_at <= at -> expired. Returns their ids.
    Result<std::vector<std::string>> expire_due(TimePoint at);
    // claimed decisions whose claiming process `claimer_alive` says is surely gone -> failed with
    // the kind's interrupted_reason. Returns their ids.
    Result<std::vector<std::string>> recover_interrupted(
        const std::function<bool(const ProcessIdentity& claimer)>& claimer_alive);

private:
    void audit(const PendingDecision& record, std::string_view transition, std::string_view actor) const;
    Result<PendingDecision> read(std::string_view id) const;
    Error lost_race(std::string_view id) const;
    // complete() without retrying what waits; a failed UPDATE is the caller's to keep.
    Result<PendingDecision> store_outcome(std::string_view id, bool ok, const boost::json::value& result,
                                          std::string_view reason) const;
    struct UnrecordedOutcome {
        std::string id;
        bool ok = false;
        boost::json::value result;
        std::string reason;
    };

    std::unique_ptr<db::BackendConnection> connection_;  // thread-safe
    const DecisionKindRules& rules_;                     // static, one per kind
    PendingDecisionsOptions options_;
    mutable std::mutex unrecorded_mutex_;
    mutable std::deque<UnrecordedOutcome> unrecorded_;  // oldest first
};

}  // namespace skillhost::decisions
