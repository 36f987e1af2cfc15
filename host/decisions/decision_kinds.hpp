// Every kind of pending decision, in one place: how each names the states all decisions move
// through (kind_states.hpp), and what it says in its own words (DecisionKindRules). A new kind (the
// gateway's definition_change) is one more DecisionKind, its states here and its row in
// decision_kinds.cpp; the state machine, the errors, the audit and the queue are shared.
#pragma once

#include "base/error.hpp"
#include "decisions/error_codes.hpp"
#include "decisions/kind_states.hpp"
#include "decisions/pending_decision.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace skillhost::decisions {

// An approval (may this call run?): pending -> approved -> executed | failed; pending -> rejected |
// expired. Claimed is approved, succeeded is executed. to_string, parse_state<ApprovalState>,
// kind_state and decision_state come from kind_states.hpp.
enum class ApprovalState { pending, approved, executed, failed, rejected, expired };
template <>
struct KindStates<ApprovalState> {
    using S = ApprovalState;
    static constexpr KindStateNames<S> names{{{S::pending, "pending"},
                                              {S::approved, "approved"},
                                              {S::executed, "executed"},
                                              {S::failed, "failed"},
                                              {S::rejected, "rejected"},
                                              {S::expired, "expired"}}};
};

// A question a skill asked mid-call: pending -> answered -> completed | failed; pending -> expired.
// `answered` is the exactly-once claim (the call runs again once, by whoever answered); succeeded is
// completed, and a question is never rejected (declining is an answer).
enum class ElicitationState { pending, answered, completed, failed, expired };
template <>
struct KindStates<ElicitationState> {
    using S = ElicitationState;
    static constexpr KindStateNames<S> names{{{S::pending, "pending"},
                                              {S::answered, "answered"},
                                              {S::completed, "completed"},
                                              {S::failed, "failed"},
                                              {S::failed, "failed"},
                                              {S::expired, "expired"}}};
};

// A changed definition of a foreign MCP server's tool (or its instructions, or a new tool):
// pending -> approved -> pinned | failed; pending -> rejected | expired. `approved` is the claim of
// whoever approved it, `pinned` that the new definition is the pin from then on.
enum class DefinitionChangeState { pending, approved, pinned, failed, rejected, expired };
template <>
struct KindStates<DefinitionChangeState> {
    using S = DefinitionChangeState;
    static constexpr KindStateNames<S> names{{{S::pending, "pending"},
                                              {S::approved, "approved"},
                                              {S::pinned, "pinned"},
                                              {S::failed, "failed"},
                                              {S::rejected, "rejected"},
                                              {S::expired, "expired"}}};
};

// What one kind of decision says in its own words: data, so that every kind's errors are built by
// one piece of code (decisions/decision_errors.hpp) and read alike. Every function is pure and
// thread-safe.
struct DecisionKindRules {
    DecisionKind kind = DecisionKind::approval;
    std::string_view id_prefix;  // "apr-"
    // "approval": the audit record's kind, "<noun>_id" its id field, and its plural the command
    std::string_view noun;
    std::string_view requested;   // the audit transition of a new decision: "requested", "asked"
    std::string_view decide;      // "resolve": "user bob may not <decide> approval apr-..."
    std::string_view unresolved;  // "resolved": "expired at ... before anyone <unresolved> it"
    // "; only the requesting user or an owner may approve or reject it"
    std::string_view who_may_decide;
    std::string_view interrupted_reason;  // why a claim whose process died was marked failed
    // "; only pending approvals can be approved or rejected": after "<noun> <id> is already <state>"
    std::string_view only_pending;
    // " and will not run; repeat ...": after "<noun> <id> expired at <time>"
    std::string_view after_expiry;
    // "not approved, so its outcome cannot be recorded": after "<noun> <id> is <state>, "
    std::string_view not_claimed_because;
    DecisionErrorCodes codes;  // declared with the kind's codes (decisions/error_codes.hpp)
    // The kind's word for a state ("approved" for claimed): kind_word<ItsState> (kind_states.hpp).
    const char* (*state_word)(DecisionState) = nullptr;
    // The kind's own fields of an audit record (an approval's argument digest; a question's
    // message and the names of the answered fields, never their values).
    void (*audit_fields)(const PendingDecision&, boost::json::object&) = nullptr;

    // "approvals": the CLI command and the API collection of the kind.
    std::string command() const { return std::string(noun) + "s"; }
    // "resolved_by": the error detail naming who decided.
    std::string decided_by() const { return std::string(unresolved) + "_by"; }
};

// Why a claim whose process died was marked failed (the call that followed may or may not have had
// its effect, so it is never run again).
inline constexpr std::string_view interrupted_reason =
    "interrupted: the host stopped while executing; re-request the action";
inline constexpr std::string_view interrupted_definition_change =
    "interrupted: the host stopped while pinning the approved definition; it is asked for again at the next listing";
inline constexpr std::string_view interrupted_elicitation =
    "interrupted: the host stopped while the answered call ran again; repeat the call to be asked again";

// The rules of `kind`.
const DecisionKindRules& rules_of(DecisionKind kind);

}  // namespace skillhost::decisions
