// The durable queue of pending elicitations: the questions among the pending decisions
// (decisions/pending_decisions), in skillhost.db or in PostgreSQL (shared by every instance): every
// transition is a compare-and-set on the row's state committed on its own, so of two people
// (threads, processes, instances) answering one question exactly one answer counts, and nothing is
// answered after it expired.
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
#include "auth/requester.hpp"
#include "decisions/decision_queue.hpp"
#include "decisions/resolver.hpp"
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
struct ElicitationAsk : DecisionAsk {
    ElicitationRequest request;
    boost::json::array prior_answers;  // see ElicitationRecord::prior_answers
};

using ElicitationFilter = StateFilter<ElicitationState>;

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

class ElicitationQueue : public DecisionQueue<ElicitationRecord, ElicitationState> {
public:
    static Result<std::unique_ptr<ElicitationQueue>> open(const db::StorageLocation& location,
                                                          ElicitationQueueOptions options = {});

    // Stores a pending question expiring after the TTL. ELICITATION_QUEUE_FULL past the limit.
    Result<ElicitationRecord> enqueue(const ElicitationAsk& ask);

    // pending -> answered for `answerer` (the asked user or an owner; a token needs the call scope,
    // since the answer makes the skill run again), who then runs the call again and calls
    // complete() (answered -> completed | failed). The content of an accept is checked against the
    // form. Errors: ELICITATION_NOT_FOUND; NOT_ALLOWED_TO_ANSWER; MISSING_SCOPE;
    // INVALID_ELICITATION_ANSWER (details.field names the field at fault); ELICITATION_EXPIRED;
    // ELICITATION_ALREADY_ANSWERED (also for the loser of two racing answers).
    Result<ElicitationRecord> answer(std::string_view id, const Resolver& answerer, const ElicitationAnswer& answer);

private:
    ElicitationQueue(std::unique_ptr<db::BackendConnection> connection, ElicitationQueueOptions options);

    std::size_t max_pending_per_user_;
};

// {action, content?} (a front end's request body) as an answer. INVALID_ELICITATION_ANSWER with
// details.field for an unknown action, content that is not an object, or content with a decline or
// cancel. The content is checked against the form by answer(), not here.
Result<ElicitationAnswer> parse_elicitation_answer(const boost::json::object& body);

}  // namespace skillhost::decisions
