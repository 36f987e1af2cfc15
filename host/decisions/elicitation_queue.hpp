// The durable queue of pending elicitations: the questions among the pending decisions
// (decisions/pending_decisions), in skillhost.db or in PostgreSQL (shared by every instance): every transition is a compare-and-set on the row's
// state committed on its own, so of two people (threads, processes, instances) answering one
// question exactly one answer counts, and nothing is answered after it expired.
//
// The flow for `elicitations answer ID`:
//   auto claim = queue.answer(id, answerer, answer);    // pending -> answered, exactly once
//   run the call again with claim->prior_answers + this answer;
//   queue.complete(id, ok, result, reason);            // answered -> completed | failed
// A host that dies between answer and complete leaves the row `answered` with its process
// identity; the next open() (or recover_interrupted()) marks it failed as interrupted, and the
// user asks again by repeating the call.
#pragma once

#include "base/error.hpp"
#include "db/backend_connection.hpp"
#include "db/storage_location.hpp"
#include "decisions/approval_queue.hpp"
#include "decisions/elicitation_form.hpp"
#include "decisions/elicitation_record.hpp"
#include "decisions/pending_decisions.hpp"
#include "decisions/process_identity.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::audit {
class AuditLog;
}  // namespace skillhost::audit

namespace skillhost::decisions {

// A skill's question, with the call that asked it.
struct ElicitationAsk {
    std::string user_id;
    std::string skill_id;
    boost::json::value arguments;
    auth::Requester requested_by;
    std::string requested_token;
    ElicitationRequest request;
    boost::json::array prior_answers;  // see ElicitationRecord::prior_answers
};

struct ElicitationFilter {
    std::optional<std::string> user_id;
    std::vector<ElicitationState> states;  // empty: every state
    std::size_t limit = 0;                 // 0: no limit; newest first either way
};

struct ElicitationQueueOptions {
    std::chrono::milliseconds ttl = std::chrono::hours(24);  // policy.yaml approvals.ttl
    std::function<TimePoint()> clock;                        // tests; empty: the system clock
    audit::AuditLog* audit = nullptr;                        // asked/answered/... records; not owned
    // A user's pending questions beyond this are refused (ELICITATION_QUEUE_FULL), so a skill
    // asking in a loop cannot fill the database.
    std::size_t max_pending_per_user = 100;
};

// The largest accepted content, serialized.
inline constexpr std::size_t kMaxElicitationAnswerBytes = 64 * 1024;

class ElicitationQueue {
public:
    static Result<std::unique_ptr<ElicitationQueue>> open(const db::StorageLocation& location,
                                                          ElicitationQueueOptions options = {});

    // Stores a pending question expiring after the TTL. ELICITATION_QUEUE_FULL past the limit.
    Result<ElicitationRecord> enqueue(const ElicitationAsk& ask);

    // ELICITATION_NOT_FOUND when there is no such id.
    Result<ElicitationRecord> get(std::string_view id) const;
    Result<std::vector<ElicitationRecord>> list(const ElicitationFilter& filter = {}) const;
    // As `viewer` may see them (PendingDecisions::get_visible / list_visible): expired ones marked
    // first; their own, or everyone's for an owner; another user's id is ELICITATION_NOT_FOUND.
    Result<ElicitationRecord> get_visible(std::string_view id, const Resolver& viewer);
    Result<std::vector<ElicitationRecord>> list_visible(const ElicitationFilter& filter, const Resolver& viewer);

    // pending -> answered for `answerer` (the asked user or an owner; a token needs the call scope,
    // since the answer makes the skill run again). The content of an accept is checked against the
    // form. Errors: ELICITATION_NOT_FOUND; NOT_ALLOWED_TO_ANSWER; MISSING_SCOPE;
    // INVALID_ELICITATION_ANSWER (details.field names the field at fault); ELICITATION_EXPIRED;
    // ELICITATION_ALREADY_ANSWERED (also for the loser of two racing answers).
    Result<ElicitationRecord> answer(std::string_view id, const Resolver& answerer, const ElicitationAnswer& answer);

    // answered -> completed (ok) or failed, storing what the call that followed returned. An
    // outcome the database refuses waits in memory, as an approval's does (ApprovalQueue::complete).
    Result<ElicitationRecord> complete(std::string_view id, bool ok, const boost::json::value& result,
                                       std::string_view reason = {});
    // Stores outcomes that waited for the database; returns how many still wait.
    std::size_t record_unrecorded_outcomes() const { return decisions_.record_unrecorded_outcomes(); }

    // pending past expires_at -> expired. Returns their ids.
    Result<std::vector<std::string>> expire_due(TimePoint now);
    Result<std::vector<std::string>> expire_due() { return expire_due(decisions_.now()); }

    // answered rows whose answering process is gone -> failed (interrupted). open() runs this.
    Result<std::vector<std::string>> recover_interrupted();
    // The same, judging each answerer with `answerer_alive` (false only when it is surely gone):
    // several instances on one database tell a dead instance on another machine by its lapsed
    // announcement, which process identity alone cannot (the elected sweeper runs this).
    Result<std::vector<std::string>> recover_interrupted(
        const std::function<bool(const ProcessIdentity& answerer)>& answerer_alive);

private:
    ElicitationQueue(std::unique_ptr<db::BackendConnection> connection, ElicitationQueueOptions options);

    PendingDecisions decisions_;
    std::size_t max_pending_per_user_;
};

// {action, content?} (a front end's request body) as an answer. INVALID_ELICITATION_ANSWER with
// details.field for an unknown action, content that is not an object, or content with a decline or
// cancel. The content is checked against the form by answer(), not here.
Result<ElicitationAnswer> parse_elicitation_answer(const boost::json::object& body);

}  // namespace skillhost::decisions
