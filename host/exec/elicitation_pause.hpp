// How a skill's question reaches a user no front end can ask while the call runs (the CLI's
// `call`, the HTTP API, an MCP client without elicitation): the question is queued, the skill's
// elicit() answers CANCELLED with ELICITATION_PENDING so it stops, and the call's outcome becomes
// ELICITATION_REQUIRED with the question's id. When the user answers, the call runs again from the
// start with the answers so far (ElicitationRecord::prior_answers plus the new one): the skill's
// n-th elicit() gets the n-th answer at once, provided it asks the same question again.
// The C ABI cannot suspend a plugin's thread for hours or across a restart; running the call
// again, like an approved call, is the honest contract (docs/plugin-authors.md).
#pragma once

#include "base/error.hpp"
#include "plugin/call_services.hpp"
#include "decisions/elicitation_queue.hpp"

#include <boost/json/array.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace skillhost::exec {

// At most this many questions per call (answers carried plus the one asked); beyond, elicit()
// fails with ELICITATION_FAILED, so a skill asking in a loop ends.
inline constexpr std::size_t kMaxElicitationsPerCall = 8;

// One per call. Thread-safe: the plugin may ask from any of its threads during the call.
class ElicitationPause {
public:
    // `ask` names the call (user, skill, arguments, requester); its request and prior_answers are
    // filled per question. `answered`: what earlier runs of this call were told.
    ElicitationPause(decisions::ElicitationQueue& queue, decisions::ElicitationAsk ask, boost::json::array answered);

    // The question this call queued, if it did.
    std::optional<decisions::ElicitationRecord> queued() const;

    // One elicit() of the call: answers carried first, then `front_end`'s own (when it can ask;
    // may be null), then the queue.
    Result<std::string> answer(std::string_view request_json, const std::atomic<bool>& call_ended,
                               plugin::CallServices* front_end);

private:
    decisions::ElicitationQueue& queue_;
    decisions::ElicitationAsk ask_;
    const boost::json::array answered_;
    mutable std::mutex mutex_;
    std::size_t asked_ = 0;  // elicit() calls so far
    std::optional<decisions::ElicitationRecord> queued_;
};

// The call's services: `front_end`'s (may be null), with elicit() answered by `pause`, which they
// keep alive (a plugin may still ask after the outcome was given).
std::shared_ptr<plugin::CallServices> with_pause(std::shared_ptr<ElicitationPause> pause,
                                                 std::shared_ptr<plugin::CallServices> front_end);

// ELICITATION_REQUIRED for a call that stopped at `record`'s question: what it asks, its id, and
// how to answer (CLI and HTTP).
Error elicitation_required(const decisions::ElicitationRecord& record);

}  // namespace skillhost::exec
