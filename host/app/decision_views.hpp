// Pending decisions as a person may see them, one use case for every kind (approvals, questions)
// and every front end: their own, or everyone's for an owner; expired ones marked first; another
// user's id is the kind's NOT_FOUND, so nobody learns the ids of other users' decisions.
#pragma once

#include "app/host_runtime.hpp"
#include "auth/user_context.hpp"
#include "base/error.hpp"
#include "decisions/approval_queue.hpp"
#include "decisions/definition_change_queue.hpp"
#include "decisions/elicitation_queue.hpp"

#include <string_view>
#include <vector>

namespace skillhost::app {

// The decision `id` of `Record`'s kind (decisions::ApprovalRecord, decisions::ElicitationRecord).
template <class Record>
Result<Record> visible_decision(HostRuntime& host, const auth::UserContext& user, std::string_view id);

// `user`'s decisions of `Record`'s kind (for an owner, those `filter` asks for: every user's unless
// it names one), newest first.
template <class Record, class State>
Result<std::vector<Record>> list_decisions(HostRuntime& host, const auth::UserContext& user,
                                           const decisions::StateFilter<State>& filter);

extern template Result<decisions::ApprovalRecord> visible_decision(HostRuntime&, const auth::UserContext&,
                                                                   std::string_view);
extern template Result<decisions::ElicitationRecord> visible_decision(HostRuntime&, const auth::UserContext&,
                                                                      std::string_view);
extern template Result<std::vector<decisions::ApprovalRecord>> list_decisions(HostRuntime&, const auth::UserContext&,
                                                                              const decisions::ApprovalFilter&);
extern template Result<std::vector<decisions::ElicitationRecord>> list_decisions(HostRuntime&, const auth::UserContext&,
                                                                                 const decisions::ElicitationFilter&);
extern template Result<decisions::DefinitionChangeRecord> visible_decision(HostRuntime&, const auth::UserContext&,
                                                                           std::string_view);
extern template Result<std::vector<decisions::DefinitionChangeRecord>> list_decisions(
    HostRuntime&, const auth::UserContext&, const decisions::DefinitionChangeFilter&);

}  // namespace skillhost::app
