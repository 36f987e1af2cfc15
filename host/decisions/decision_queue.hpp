// What the queue of every kind of pending decision (ApprovalQueue, ElicitationQueue) offers alike:
// reading its decisions as the kind's records, what a viewer may see, recording the outcome of the
// call that followed a claim, expiry and recovery. A kind's queue derives from DecisionQueue and adds
// only how its decisions are asked for and decided.
#pragma once

#include "base/error.hpp"
#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"
#include "decisions/pending_decisions.hpp"
#include "decisions/process_identity.hpp"
#include "decisions/resolver.hpp"

#include <boost/json/value.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skillhost::decisions {

// Which decisions of a kind to list, with the states in the kind's words.
template <class State>
struct StateFilter {
    std::optional<std::string> user_id;
    std::vector<State> states;  // empty: every state
    std::size_t limit = 0;      // 0: no limit; newest first either way
};

// `Record` is the kind's record, `State` its states (both convert from a PendingDecision's).
template <class Record, class State>
class DecisionQueue {
public:
    using Filter = StateFilter<State>;
    using ToRecord = Record (*)(const PendingDecision&);

    // The kind's NOT_FOUND when there is no such id.
    Result<Record> get(std::string_view id) const { return typed(decisions_.get(id)); }
    Result<std::vector<Record>> list(const Filter& filter = {}) const { return typed(decisions_.list(of(filter))); }

    // As `viewer` may see them (PendingDecisions::get_visible / list_visible): expired ones marked
    // first; their own, or everyone's for an owner; another user's id is the kind's NOT_FOUND.
    Result<Record> get_visible(std::string_view id, const Resolver& viewer) {
        return typed(decisions_.get_visible(id, viewer.user_id, viewer.is_owner()));
    }
    Result<std::vector<Record>> list_visible(const Filter& filter, const Resolver& viewer) {
        return typed(decisions_.list_visible(of(filter), viewer.user_id, viewer.is_owner()));
    }

    // claimed -> succeeded (ok) or failed, storing what the call that followed returned and why.
    // The kind's NOT_CLAIMED when it is not claimed (e.g. already marked interrupted). An outcome
    // the database refuses (full, read-only, unreachable) waits in memory (at most
    // max_unrecorded_outcomes) and is stored by the next get(), list(), complete() or
    // record_unrecorded_outcomes() once it takes writes again; it is never lost while the host runs,
    // and a host that stops first leaves the row to recover_interrupted().
    Result<Record> complete(std::string_view id, bool ok, const boost::json::value& result,
                            std::string_view reason = {}) {
        return typed(decisions_.complete(id, ok, result, reason));
    }
    // Returns how many outcomes still wait.
    std::size_t record_unrecorded_outcomes() const { return decisions_.record_unrecorded_outcomes(); }
    static constexpr std::size_t max_unrecorded_outcomes = PendingDecisions::max_unrecorded_outcomes;

    // pending decisions whose expires_at <= at -> expired. Returns their ids.
    Result<std::vector<std::string>> expire_due(TimePoint at) { return decisions_.expire_due(at); }
    Result<std::vector<std::string>> expire_due() { return expire_due(decisions_.now()); }

    // Claimed decisions whose claiming process is gone -> failed with the kind's interrupted
    // reason (the call that followed is never run again: it may or may not have had its effect).
    // Returns their ids. Opening the queue runs this.
    Result<std::vector<std::string>> recover_interrupted() { return decisions_.recover_interrupted(process_is_alive); }
    // The same, judging each claimer with `claimer_alive` (false only when it is surely gone):
    // several instances on one database tell a dead instance on another machine by its lapsed
    // announcement, which process identity alone cannot (the elected sweeper runs this).
    Result<std::vector<std::string>> recover_interrupted(
        const std::function<bool(const ProcessIdentity& claimer)>& claimer_alive) {
        return decisions_.recover_interrupted(claimer_alive);
    }

    std::chrono::milliseconds ttl() const { return decisions_.ttl(); }

protected:
    DecisionQueue(std::unique_ptr<db::BackendConnection> connection, const DecisionKindRules& rules,
                  PendingDecisionsOptions options, ToRecord to_record)
        : decisions_(std::move(connection), rules, std::move(options)), to_record_(to_record) {}

    // Opens `location`, makes the queue with `make(connection)` and recovers what dead processes
    // left claimed (each logged). DATABASE_ERROR when the storage cannot be used.
    template <class Queue, class Make>
    static Result<std::unique_ptr<Queue>> open_queue(const db::StorageLocation& location, Make make) {
        auto connection = db::BackendConnection::open(location);
        if (!connection) return connection.error();
        std::unique_ptr<Queue> queue = make(std::move(*connection));
        auto recovered = queue->recover_interrupted();
        if (!recovered) return recovered.error();
        for (const auto& id : *recovered)
            spdlog::warn("{} {} was claimed when the host stopped; marked failed ({})", queue->rules().noun, id,
                         queue->rules().interrupted_reason);
        return queue;
    }

    const DecisionKindRules& rules() const { return decisions_.rules(); }

    Result<Record> typed(Result<PendingDecision> decision) const {
        if (!decision) return decision.error();
        return to_record_(*decision);
    }
    Result<std::vector<Record>> typed(Result<std::vector<PendingDecision>> decisions) const {
        if (!decisions) return decisions.error();
        std::vector<Record> out;
        out.reserve(decisions->size());
        for (const auto& decision : *decisions) out.push_back(to_record_(decision));
        return out;
    }

    PendingDecisions decisions_;

private:
    static DecisionFilter of(const Filter& filter) {
        DecisionFilter decisions{filter.user_id, {}, filter.limit};
        for (const auto state : filter.states) decisions.states.push_back(decision_state(state));
        return decisions;
    }

    ToRecord to_record_;
};

}  // namespace skillhost::decisions
